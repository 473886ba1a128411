// How a person finds the page while it works: clicks on a button outside
// the app and how long each waited, and the main thread's long tasks
// (shared by the tests that build or read large inputs).

/** A button outside the app; each click records how long the input waited. */
export async function addPing(page) {
  await page.evaluate(() => {
    window.__pings = [];
    const b = document.createElement('button');
    b.id = 'ping';
    b.textContent = 'ping';
    b.style.cssText = 'position:fixed;right:4px;bottom:4px;z-index:9';
    b.addEventListener('click', (e) => window.__pings.push({
      wait: performance.now() - e.timeStamp,
      running: document.querySelector('#job')?.dataset.state === 'running',
    }));
    document.body.appendChild(b);
  });
}

/** Record the page's long tasks (main thread blocked > 50 ms). */
export async function watchLongTasks(page) {
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(e.duration);
    }).observe({ type: 'longtask' });
  });
}

export async function longestTask(page) {
  const ds = await page.evaluate(() => window.__longTasks);
  return ds.length ? Math.max(...ds) : 0;
}

/** Click the ping button while the main job line runs (`#job` running),
 *  one click per 50 ms; then what they waited: `{ during, worst, blocked }`
 *  (clicks answered while it ran, the longest input wait, the longest
 *  main-thread task). */
export async function clickWhileRunning(page) {
  while ((await page.getAttribute('#job', 'data-state')) === 'running') {
    await page.click('#ping');
    await page.waitForTimeout(50);
  }
  const pings = await page.evaluate(() => window.__pings);
  return {
    during: pings.filter((p) => p.running).length,
    worst: Math.max(...pings.map((p) => p.wait)),
    blocked: await longestTask(page),
  };
}
