"""The project's test model server: no model, but the three wire formats a
benchmark run speaks (OpenAI Chat Completions, Anthropic Messages, Google
Gemini generateContent), answering each RepoQA prompt from the task it
carries, with faults injected on request. Loopback only; CORS on by default.

    python3 model_server.py --dataset DATASET.json [--key K] [--model M]
        [--models A,B] [--no-cors] [--fault NAME=KIND[,KIND...] ...]
        [--slow-s S] [--latency-s S] [--zero] [--slots N [--props]]

--slots N: answers N requests at a time, as llama.cpp with N slots; the
others wait in a queue (an abandoned request still takes its turn). With
--props, GET /props says so as llama.cpp does ({"total_slots": N, ...},
with "default_generation_settings": {"n_ctx": --n-ctx (8192)});
without it that route is a 404. /stats reports "max_busy", the most
requests answered at once.

--models: GET …/models lists these names (OpenAI/Anthropic `data[].id`,
Gemini `models[].name` under /v1beta); without it that route is a 404.

Prints "PORT <n>" on its first stdout line, then serves on 127.0.0.1:<n>
until its stdin closes or it is killed. Standard library only.

Routes:  POST /v1/chat/completions                      (OpenAI format)
         POST /v1/messages                              (Anthropic format)
         POST /v1beta/models/<model>:generateContent    (Google format)
         GET  /stats, GET /requests, POST /control      (for the tests)
         POST /batch?format=openai|anthropic            (a batch, answered)

/batch takes a batch file as `repoqa batch export` writes it (an OpenAI
Batch API input JSONL, or an Anthropic Message Batches request body) and
answers each request by sending it to this server's own live route, with
the --key; it returns {"results": TEXT, "errors": TEXT}, the files the
provider gives back: OpenAI's output file (2xx replies) and error file
(the others), each line {"id", "custom_id", "response": {"status_code",
"request_id", "body"}, "error": null}; Anthropic's results JSONL, each
line {"custom_id", "result": {"type": "succeeded", "message"} or
{"type": "errored", "error": <the error body>}}.

The task is found from the prompt's "Function Description:" (the dataset's
needle descriptions). The reply depends on the needle's index i in its repo:
i % 4 in (0, 1): the needle's code in a fenced block; 2: another needle of
the same repo; 3: prose without code. Usage reports len(prompt) // 3 prompt
tokens (the runner's truncation check compares with the task's count).

Faults, per needle name (successive requests for it get the listed faults
in order, then answers); NAME "*" means every request:
  429      HTTP 429 with Retry-After: 1
  500      HTTP 500
  drop     the connection is closed without a reply
  badjson  HTTP 200 with a cut JSON body
  slow     the reply comes after --slow-s seconds (beyond a client timeout)
  nocors   a normal reply without CORS headers (a browser cannot read it)
  401      the key is refused, in the format's own words
  ctx      a context-length error, in the format's own words (every request)
  trunc    a normal reply reporting 50 prompt tokens (a silently cut prompt)
  redirect HTTP 302 to GET /landing, which answers a chat completion
  numcontent  HTTP 200 whose message content is the number 42
  othermodel  a normal reply naming the model "other-model-9"
  gzipbomb a gzip-encoded reply that inflates to 1 GiB of spaces
  judgebad a normal reply whose text has no score lines (a CoReQA judge
           request: the judge's reply is malformed; a pre-filter's has no
           verdict)
  prefera  a pairwise judge reply preferring answer A whatever it says
  cut      the first half of the normal reply, ended at the token limit
           (finish_reason "length", stop_reason "max_tokens", finishReason
           "MAX_TOKENS")
A call-path prompt ("Source function: `A` (in F)" … "Target function: `B`",
`repoqa prompts --task call-path`) gets NO PATH when A's name has an even
length, else "1. A\n2. B" (fault name "callpath:A").

--zero answers every request at once with a fixed reply (benchmarks).

Reasoning models, chosen by the model name as each provider's are (a RepoQA
task is then always answered right, after a thinking whose first code block
is another needle of the repo, the trap for a scorer that reads the
thinking; the thinking takes --think-tokens (2000) tokens, the answer
len(text) // 3):
  OpenAI format, o1/o3/o4*/gpt-5* (not gpt-5-chat*): `max_tokens` is refused
      (400 unsupported_parameter, "Use 'max_completion_tokens' instead"), so
      is a temperature other than 1 (400 unsupported_value); the thinking
      counts against max_completion_tokens: too few gives content "" with
      finish_reason "length"; usage.completion_tokens_details.reasoning_tokens.
  OpenAI format, deepseek-reasoner: the thinking in message.reasoning_content.
  OpenAI format, qwen3* / qwq* (not *instruct*, *coder*): the content is
      "<think>…</think>" then the answer (a server without a reasoning
      parser); deepseek-r1* the same without the opening tag (the chat
      template opened it). Both count the thinking against max_tokens: too
      few gives the cut content (an unclosed <think>), finish "length".
  Anthropic, any model with `thinking`: budget_tokens < 1024, or not below
      max_tokens, or a temperature set, is a 400; the reply is a thinking
      block, a redacted_thinking block, then the text; thinking uses
      min(--think-tokens, budget); over max_tokens: stop_reason
      "max_tokens" with the thinking only, or with the answer's start
      when the thinking fit.
  Google, gemini-2.5* / gemini-3*: thinks by default (thinkingBudget: -1
      dynamic; 0 off on Flash), min(--think-tokens, budget) tokens, shared
      with maxOutputTokens: too few gives a candidate with no text and
      finishReason MAX_TOKENS; includeThoughts: a part {"thought": true}
      first; usageMetadata.thoughtsTokenCount. thinkingLevel and
      thinkingBudget together are a 400.
Effort values, as each provider documents them (a value a model does not
take is a 400; none thinks 0 tokens): OpenAI `reasoning_effort`: o-series
low/medium/high, gpt-5-pro high, gpt-5.1-codex-max low..xhigh, gpt-5.1
none/low/medium/high, gpt-5.2 and later none/low/medium/high/xhigh, gpt-5
minimal/low/medium/high; an open-weight thinker's server (vLLM) takes
low/medium/high only. Anthropic `thinking: {"type": "disabled"}` answers
without thinking. Google `thinkingLevel`: gemini-3-flash minimal/low/
medium/high, other gemini-3 low/high; `thinkingBudget: 0` is a 400 on
gemini-2.5-pro (it only works in thinking mode).

CoReQA QA generation (`repoqa coreqa build`, no file needed): a question
prompt ("## Issue title" ... "## Issue description") gets
'How do I resolve the problem "<title>"?' (fault name "question:<title>"),
after a line of reasoning and "Question: " when the prompt asks for that line;
a reference prompt (with "## Issue comments") gets "The maintainers
answered: <first line of the first comment>" (fault name
"reference:<title>"); a pre-filter prompt (`build --prefilter`: the issue,
then "Verdict: keep" and "Verdict: drop" to choose from) gets reasons and
"Verdict: drop" when the title ends in an odd digit, else "Verdict: keep"
(fault name "prefilter:<title>"; judgebad leaves the verdict out).

CoReQA (--coreqa QA.jsonl): an answering prompt (`repoqa coreqa answer`:
"## Question" ... "## Your answer") is found by its question; its fault name
is "answer:<id>". The reply depends on the model asked: "good-model" gives
the reference answer when the prompt has context (retrieved code or the
whole repository) and its first sentence without; any other model gives
"I am not sure; it may be a bug in <repository>.". A judging prompt (the
default judge template: "## Reference answer" ... "## Candidate answer")
is found by its question; its fault name is "judge:<id>". The judge's
reply reasons in a line, then gives the four score lines: 9 each for the
reference answer itself, 7/5/8/8 for an answer the reference starts with,
2/2/4/6 otherwise; the k-th request for one candidate adds k % 2 to the
accuracy (so repetitions differ, deterministically at concurrency 1).
A pairwise prompt ("## Answer A", "## Answer B"; fault name "pair:<id>")
scores each answer so (reference 2, its start 1, else 0) and ends with
"Verdict: A", "Verdict: B" or "Verdict: tie".
"""

import argparse
import functools
import json
import os
import re
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARK = "\nFunction Description:"
INSTRUCTION = (
    "Based on the function description and code context,"
    " please retrieve and repeat the exact described function from the code context in a code block wrapped by ```:"
)
STICKY = {"ctx"}


def between(text, start, end):
    i = text.find(start)
    if i < 0:
        return None
    i += len(start)
    j = text.find(end, i)
    return None if j < 0 else text[i:j]


def call_path_find(prompt):
    """(lang, repo, fault name, reply) for a call-path prompt (NOT UPSTREAM,
    `repoqa prompts --task call-path`), else None: no graph here, so the
    reply is fixed by the source's name: NO PATH when its length is even,
    else the source then the target, numbered (fault name "callpath:<source>")."""
    source = between(prompt, "\nSource function: `", "`")
    target = between(prompt, "\nTarget function: `", "`")
    if source is None or target is None:
        return None
    reply = "NO PATH" if len(source) % 2 == 0 else f"1. {source}\n2. {target}"
    return ("call-path", "", "callpath:" + source, reply)


class Coreqa:
    """question text -> QA item; the CoReQA replies."""

    def __init__(self, path):
        self.by_question = {}
        if path:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            items = json.loads(text) if text.lstrip().startswith("[") else [json.loads(l) for l in text.splitlines() if l.strip()]
            for item in items:
                self.by_question[item["question"].rstrip()] = item
        self.judged = {}  # (question id, candidate) -> judge requests so far
        self.lock = threading.Lock()

    def find(self, prompt, model):
        """(lang, repo, fault name, reply) for a CoReQA prompt, else None."""
        title = between(prompt, "\n## Issue title\n\n", "\n\n## Issue description\n\n")
        if title is not None and "\nVerdict: keep\nVerdict: drop\n" in prompt:
            keep = not (title[-1:].isdigit() and int(title[-1]) % 2 == 1)
            reasons = "The discussion answers it." if keep else "The discussion leaves it open."
            return ("coreqa", "", "prefilter:" + title, f"{reasons}\n\nVerdict: {'keep' if keep else 'drop'}")
        if title is not None:
            if "\n## Issue comments\n\n" in prompt:
                comments = prompt.split("\n## Issue comments\n\n", 1)[1] + "\n"
                first = between(comments, "positive reactions)\n\n", "\n") or "(no comments)"
                return ("coreqa", "", "reference:" + title, f"The maintainers answered: {first}")
            # The default question prompt asks for reasoning, then a line
            # "Question: ..." (a prompt of one's own may ask for the question alone).
            q = f'How do I resolve the problem "{title}"?'
            if "\"Question:\"" in prompt:
                return ("coreqa", "", "question:" + title, f"The reporter hit a problem: {title}.\n\nQuestion: {q}")
            return ("coreqa", "", "question:" + title, q)
        if not self.by_question:
            return None
        if "\n## Answer A\n\n" in prompt:
            q = between(prompt, "## Question\n\n", "\n\n## Reference answer\n\n")
            item = self.by_question.get(q)
            a = between(prompt, "\n## Answer A\n\n", "\n\n## Answer B\n\n")
            b = between(prompt, "\n## Answer B\n\n", "\n\n## How to reply")
            if item is None or a is None or b is None:
                return None
            ref = item["reference_answer"].rstrip()
            score = lambda x: 2 if x == ref else 1 if ref.startswith(x) else 0
            sa, sb = score(a), score(b)
            verdict = "A" if sa > sb else "B" if sb > sa else "tie"
            reply = f"A scores {sa}, B scores {sb} against the reference.\n\nVerdict: {verdict}"
            return ("coreqa", item["repository"], "pair:" + item["id"], reply)
        if "\n## Candidate answer\n\n" in prompt:
            q = between(prompt, "## Question\n\n", "\n\n## Reference answer\n\n")
            item = self.by_question.get(q)
            candidate = between(prompt, "\n## Candidate answer\n\n", "\n\n## How to reply")
            if item is None or candidate is None:
                return None
            ref = item["reference_answer"].rstrip()
            if candidate == ref:
                scores = [9, 9, 9, 9]
            elif ref.startswith(candidate):
                scores = [7, 5, 8, 8]
            else:
                scores = [2, 2, 4, 6]
            with self.lock:
                k = self.judged.get((item["id"], candidate), 0)
                self.judged[(item["id"], candidate)] = k + 1
            scores[0] += k % 2
            names = ["Accuracy", "Completeness", "Relevance", "Clarity"]
            reply = "Comparing the candidate with the reference point by point.\n\n" + "\n".join(
                f"{n}: {s}" for n, s in zip(names, scores)
            )
            return ("coreqa", item["repository"], "judge:" + item["id"], reply)
        q = between(prompt, "\n## Question\n\n", "\n\n## Your answer\n")
        item = self.by_question.get(q)
        if item is None:
            return None
        ref = item["reference_answer"].rstrip()
        if model == "good-model":
            has_context = "\n## Code retrieved from the repository\n" in prompt or "\n## The repository\n" in prompt
            reply = ref if has_context else ref.split(". ")[0]
        else:
            reply = f"I am not sure; it may be a bug in {item['repository']}."
        return ("coreqa", item["repository"], "answer:" + item["id"], reply)


class Tasks:
    """description -> (language, repo, needle name, reply mode, code)"""

    def __init__(self, dataset):
        self.by_desc = {}
        for lang, repos in dataset.items():
            for repo in repos:
                needles = repo.get("needles", [])
                for i, n in enumerate(needles):
                    code = repo["content"][n["path"]][n["start_byte"] : n["end_byte"]]
                    other = needles[(i + 1) % len(needles)]
                    other_code = repo["content"][other["path"]][other["start_byte"] : other["end_byte"]]
                    if i % 4 in (0, 1):
                        reply = f"Here is the function:\n\n```{lang}\n{code}\n```\n"
                    elif i % 4 == 2:
                        reply = f"```{lang}\n{other_code}\n```"
                    else:
                        reply = "I could not find a function matching that description in the code."
                    right = f"Here is the function:\n\n```{lang}\n{code}\n```\n"
                    thought = f"The description could fit this one:\n\n```{lang}\n{other_code}\n```\n\nNo: its inputs differ. The other one matches."
                    self.by_desc.setdefault(n["description"], (lang, repo["repo"], n["name"], reply, right, thought))

    def find(self, prompt):
        i = prompt.rfind(MARK)
        if i < 0:
            return None
        rest = prompt[i + len(MARK) :]
        tail = "\n" + INSTRUCTION
        if rest.endswith(tail):
            rest = rest[: -len(tail)]
        return self.by_desc.get(rest)


class State:
    def __init__(self, args, tasks):
        self.args = args
        self.tasks = tasks
        self.cors = not args.no_cors
        # The reply to a prompt that is no task (Test connection's), when
        # set by /control {"test_reply": …}; None: a 400 as before.
        self.test_reply = None
        self.faults = {}
        for spec in args.fault:
            name, kinds = spec.split("=", 1)
            self.faults[name] = kinds.split(",")
        self.seen = {}  # needle name -> requests so far
        self.requests = []  # what each POST carried
        self.answered = {}  # task id -> 200 answers sent
        self.faulted = {}  # kind -> count
        self.server_ms = 0.0
        self.lock = threading.Lock()
        self.slots = threading.Semaphore(args.slots) if args.slots else None
        self.busy = 0
        self.max_busy = 0

    def fault_for(self, name):
        with self.lock:
            k = self.seen.get(name, 0)
            self.seen[name] = k + 1
            for key in ("*", name):
                kinds = self.faults.get(key)
                if not kinds:
                    continue
                sticky = [x for x in kinds if x in STICKY]
                if sticky:
                    return sticky[0]
                if key == "*":
                    return kinds[k % len(kinds)] if kinds else None
                if k < len(kinds):
                    return kinds[k]
            return None


def openai_ok(model, text, ptoks, ctoks):
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": ptoks, "completion_tokens": ctoks, "total_tokens": ptoks + ctoks},
    }


def anthropic_ok(model, text, ptoks, ctoks):
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": ptoks, "output_tokens": ctoks},
    }


def google_ok(model, text, ptoks, ctoks):
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": ptoks, "candidatesTokenCount": ctoks, "totalTokenCount": ptoks + ctoks},
        "modelVersion": model,
    }


OK = {"openai": openai_ok, "anthropic": anthropic_ok, "google": google_ok}


@functools.lru_cache(maxsize=1)
def gzip_bomb():
    """A gzip stream of 1 GiB of spaces (about 1 MB), made once."""
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b" " * (1 << 20)
    parts = [z.compress(chunk) for _ in range(1024)]
    parts.append(z.flush())
    return b"".join(parts)


THINKERS_OPENAI = re.compile(r"^(o[134]|gpt-5(?!-chat))")
INLINE = re.compile(r"^(qwen3|qwq)(?!.*(instruct|coder))")


def bad_request(fmt, message, code):
    if fmt == "anthropic":
        return (400, {"type": "error", "error": {"type": "invalid_request_error", "message": message}})
    if fmt == "google":
        return (400, {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}})
    return (400, {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}})


def openai_efforts(bare):
    """The reasoning_effort values an OpenAI-format model takes."""
    if bare.startswith("gpt-5-pro"):
        return ["high"]
    if bare.startswith("gpt-5.1-codex-max"):
        return ["low", "medium", "high", "xhigh"]
    if bare.startswith("gpt-5.1"):
        return ["none", "low", "medium", "high"]
    if bare.startswith("gpt-5."):
        return ["none", "low", "medium", "high", "xhigh"]
    if bare.startswith("gpt-5"):
        return ["minimal", "low", "medium", "high"]
    return ["low", "medium", "high"]


def gemini_levels(bare):
    return ["minimal", "low", "medium", "high"] if bare.startswith("gemini-3-flash") else ["low", "high"]


def refused_effort(fmt, value, allowed):
    quoted = ", ".join(f"'{v}'" for v in allowed)
    return bad_request(fmt, f"Unsupported value: 'reasoning_effort' does not support '{value}' with this model. Supported values are: {quoted}.", "unsupported_value")


def reasoning_reply(fmt, model, req, found, ptoks, think_tokens):
    """(status, body) as a reasoning model answers, or None for another model."""
    bare = (model or "").rsplit("/", 1)[-1].lower()
    answer = found[4] if len(found) > 4 else found[3]
    thought = found[5] if len(found) > 5 else "Weighing the question against what I know."
    atoks = max(1, len(answer) // 3)
    if fmt == "openai":
        effort = req.get("reasoning_effort")
        if THINKERS_OPENAI.match(bare):
            if effort is not None and effort not in openai_efforts(bare):
                return refused_effort(fmt, effort, openai_efforts(bare))
            if effort == "none":
                think_tokens = 0
            if "max_tokens" in req:
                return bad_request(fmt, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "unsupported_parameter")
            if "temperature" in req and req["temperature"] != 1:
                return bad_request(fmt, f"Unsupported value: 'temperature' does not support {req['temperature']} with this model. Only the default (1) value is supported.", "unsupported_value")
            limit = req.get("max_completion_tokens")
            cut = limit is not None and limit < think_tokens + atoks
            body = openai_ok(model, "" if cut else answer, ptoks, limit if cut else think_tokens + atoks)
            body["choices"][0]["finish_reason"] = "length" if cut else "stop"
            body["usage"]["completion_tokens_details"] = {"reasoning_tokens": min(think_tokens, limit) if cut else think_tokens}
            return (200, body)
        if bare.startswith("deepseek-reasoner"):
            body = openai_ok(model, answer, ptoks, think_tokens + atoks)
            body["choices"][0]["message"]["reasoning_content"] = thought
            body["usage"]["completion_tokens_details"] = {"reasoning_tokens": think_tokens}
            return (200, body)
        if effort is not None and effort not in ("low", "medium", "high") and (INLINE.match(bare) or bare.startswith("deepseek")):
            return (400, {"object": "error", "message": f"1 validation error: reasoning_effort: Input should be 'low', 'medium' or 'high' (got '{effort}')", "type": "BadRequestError", "code": 400})
        opener = None
        if INLINE.match(bare):
            opener = "<think>\n"
        elif bare.startswith("deepseek-r1"):
            opener = ""
        if opener is None:
            return None
        limit = req.get("max_tokens")
        full = f"{opener}{thought}\n</think>\n\n{answer}"
        cut = limit is not None and limit < think_tokens + atoks
        if cut:
            full = f"{opener}{thought[: max(1, len(thought) // 2)]}"
        body = openai_ok(model, full, ptoks, limit if cut else think_tokens + atoks)
        body["choices"][0]["finish_reason"] = "length" if cut else "stop"
        return (200, body)
    if fmt == "anthropic":
        thinking = req.get("thinking")
        if not thinking:
            return None
        if thinking.get("type") == "disabled":
            # A thinker told not to think: the right answer, no thinking blocks.
            body = anthropic_ok(model, answer, ptoks, atoks)
            return (200, body)
        budget = thinking.get("budget_tokens", 0)
        max_tokens = req.get("max_tokens", 0)
        if thinking.get("type") != "enabled" or budget < 1024:
            return bad_request(fmt, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024", None)
        if budget >= max_tokens:
            return bad_request(fmt, "`max_tokens` must be greater than `thinking.budget_tokens`.", None)
        if "temperature" in req:
            return bad_request(fmt, "`temperature` may only be set to 1 when thinking is enabled.", None)
        used = min(think_tokens, budget)
        content = [
            {"type": "thinking", "thinking": thought, "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
        ]
        cut = max_tokens < used + atoks
        if not cut:
            content.append({"type": "text", "text": answer})
        elif max_tokens > used:
            # The thinking fit, the answer did not: its start.
            content.append({"type": "text", "text": answer[: 3 * (max_tokens - used)]})
        body = anthropic_ok(model, "", ptoks, max_tokens if cut else used + atoks)
        body["content"] = content
        body["stop_reason"] = "max_tokens" if cut else "end_turn"
        return (200, body)
    if fmt == "google":
        if not (bare.startswith("gemini-2.5") or bare.startswith("gemini-3")):
            return None
        config = req.get("generationConfig", {})
        tc = config.get("thinkingConfig", {})
        if "thinkingLevel" in tc and "thinkingBudget" in tc:
            return bad_request(fmt, "You can only set only one of thinking budget and thinking level.", None)
        if "thinkingLevel" in tc and tc["thinkingLevel"] not in gemini_levels(bare):
            return bad_request(fmt, f"Thinking level {tc['thinkingLevel']} is not supported for this model. Supported levels: {', '.join(gemini_levels(bare))}.", None)
        if tc.get("thinkingBudget") == 0 and bare.startswith("gemini-2.5-pro"):
            return bad_request(fmt, "Budget 0 is invalid. This model only works in thinking mode.", None)
        budget = tc.get("thinkingBudget", -1)
        used = think_tokens if budget in (-1, None) or "thinkingLevel" in tc else min(think_tokens, budget)
        limit = config.get("maxOutputTokens")
        cut = limit is not None and limit < used + atoks
        parts = []
        if tc.get("includeThoughts") and used > 0:
            parts.append({"text": thought, "thought": True})
        if not cut:
            parts.append({"text": answer})
        body = google_ok(model, "", ptoks, 0 if cut else atoks)
        candidate = body["candidates"][0]
        candidate["content"] = {"role": "model", "parts": parts} if parts else {"role": "model"}
        candidate["finishReason"] = "MAX_TOKENS" if cut else "STOP"
        if used > 0:
            body["usageMetadata"]["thoughtsTokenCount"] = min(used, limit) if cut and limit is not None else used
        return (200, body)
    return None


def error_body(fmt, kind, ptoks=0):
    if kind == "401":
        return {
            "openai": (401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}),
            "anthropic": (401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
            "google": (400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"reason": "API_KEY_INVALID"}]}}),
        }[fmt]
    if kind == "ctx":
        return {
            "openai": (400, {"error": {"message": f"This model's maximum context length is 8192 tokens. However, your messages resulted in {ptoks} tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            "anthropic": (400, {"type": "error", "error": {"type": "invalid_request_error", "message": f"prompt is too long: {ptoks} tokens > 8192 maximum"}}),
            "google": (400, {"error": {"code": 400, "message": f"The input token count ({ptoks}) exceeds the maximum number of tokens allowed (8192).", "status": "INVALID_ARGUMENT"}}),
        }[fmt]
    if kind == "429":
        return {
            "openai": (429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}),
            "anthropic": (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "Rate limited"}}),
            "google": (429, {"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}),
        }[fmt]
    if kind == "500":
        return (500, {"error": {"message": "test server: internal error", "type": "server_error"}})
    if kind == "404":
        return (404, {"error": {"message": "The model does not exist", "type": "invalid_request_error", "code": "model_not_found"}})
    raise ValueError(kind)


def make_handler(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, headers=(), cors=True):
            data = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            if cors:
                self.cors_headers()
            # Headers and body in one write, without Nagle's delay: a
            # benchmark measures the client, not TCP's delayed ACKs.
            self._headers_buffer.append(b"\r\n" + data)
            self.flush_headers()

        def setup(self):
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def cors_headers(self):
            if state.cors:
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header(
                    "Access-Control-Allow-Headers",
                    "authorization, content-type, x-api-key, anthropic-version, "
                    "anthropic-dangerous-direct-browser-access, x-goog-api-key",
                )
                self.send_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
                self.send_header("Access-Control-Expose-Headers", "retry-after")

        def do_OPTIONS(self):
            self.send_response(204 if state.cors else 405)
            self.cors_headers()
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):
            with state.lock:
                if self.path == "/stats":
                    body = {
                        "requests": len(state.requests),
                        "answered": state.answered,
                        "faulted": state.faulted,
                        "server_ms": state.server_ms,
                        "max_busy": state.max_busy,
                    }
                elif self.path == "/props" and state.args.props and state.args.slots:
                    body = {"default_generation_settings": {"n_ctx": state.args.n_ctx}, "total_slots": state.args.slots}
                elif self.path == "/requests":
                    body = state.requests
                elif self.path == "/landing":
                    body = openai_ok("landing", "the landing page", 1, 1)
                elif self.path.endswith("/models") and state.args.models is not None:
                    names = [m for m in state.args.models.split(",") if m]
                    if self.path.startswith("/v1beta/"):
                        body = {"models": [{"name": "models/" + m} for m in names]}
                    else:
                        body = {"object": "list", "data": [{"id": m, "object": "model"} for m in names]}
                else:
                    return self.send(404, {"error": {"message": f"no route {self.path}"}})
            self.send(200, body)

        def read_body(self):
            length = int(self.headers.get("Content-Length", "0"))
            return self.rfile.read(length)

        def do_POST(self):
            t0 = time.perf_counter()
            try:
                self.handle_post()
            finally:
                with state.lock:
                    state.server_ms += (time.perf_counter() - t0) * 1000.0

        def answer_batch(self, raw):
            fmt = "anthropic" if "format=anthropic" in self.path else "openai"
            port = self.server.server_address[1]
            if fmt == "openai":
                lines = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
                items = [(x["custom_id"], x["url"], x["body"]) for x in lines]
            else:
                items = [(x["custom_id"], "/v1/messages", x["params"]) for x in json.loads(raw)["requests"]]
            results, errors = [], []
            for n, (cid, url, body) in enumerate(items):
                headers = {"Content-Type": "application/json"}
                key = state.args.key or "any"
                if fmt == "openai":
                    headers["Authorization"] = "Bearer " + key
                else:
                    headers["x-api-key"] = key
                req = urllib.request.Request(f"http://127.0.0.1:{port}{url}", data=json.dumps(body).encode(), headers=headers, method="POST")
                try:
                    with urllib.request.urlopen(req, timeout=60) as r:
                        status, text = r.status, r.read().decode("utf-8")
                except urllib.error.HTTPError as e:
                    status, text = e.code, e.read().decode("utf-8")
                reply = json.loads(text)
                if fmt == "openai":
                    line = {"id": f"batch_req_{n}", "custom_id": cid, "response": {"status_code": status, "request_id": f"req_{n}", "body": reply}, "error": None}
                    (results if 200 <= status < 300 else errors).append(line)
                elif 200 <= status < 300:
                    results.append({"custom_id": cid, "result": {"type": "succeeded", "message": reply}})
                else:
                    results.append({"custom_id": cid, "result": {"type": "errored", "error": reply}})
            text = lambda xs: "".join(json.dumps(x) + "\n" for x in xs)
            return self.send(200, {"results": text(results), "errors": text(errors)})

        def handle_post(self):
            raw = self.read_body()
            path = self.path.split("?", 1)[0]
            if path == "/batch":
                return self.answer_batch(raw)
            if path == "/control":
                ctl = json.loads(raw or b"{}")
                with state.lock:
                    if ctl.get("reset"):
                        state.seen.clear()
                        state.requests.clear()
                        state.answered.clear()
                        state.faulted.clear()
                        state.server_ms = 0.0
                        state.max_busy = 0
                        with state.coreqa.lock:
                            state.coreqa.judged.clear()
                    if "faults" in ctl:
                        state.faults = {k: list(v) for k, v in ctl["faults"].items()}
                    if "cors" in ctl:
                        state.cors = bool(ctl["cors"])
                    if "models" in ctl:
                        state.args.models = ctl["models"]
                    if "test_reply" in ctl:
                        state.test_reply = ctl["test_reply"]
                return self.send(200, {"ok": True})
            if state.args.zero:
                with state.lock:
                    state.requests.append(None)
                return self.send(200, openai_ok("zero", "```python\ndef f():\n    pass\n```", 1000, 10))
            if path.endswith("/chat/completions"):
                fmt = "openai"
            elif path.endswith("/messages"):
                fmt = "anthropic"
            elif path.endswith(":generateContent"):
                fmt = "google"
            else:
                return self.send(404, {"error": {"message": f"no route {self.path}"}})
            try:
                req = json.loads(raw)
            except ValueError:
                return self.send(400, {"error": {"message": "body is not JSON"}})
            h = {k.lower(): v for k, v in self.headers.items()}
            if fmt == "openai":
                given_key = (h.get("authorization") or "").removeprefix("Bearer ")
                model = req.get("model")
                msgs = req.get("messages", [])
                prompt = msgs[-1].get("content") if msgs else None
            elif fmt == "anthropic":
                given_key = h.get("x-api-key", "")
                model = req.get("model")
                msgs = req.get("messages", [])
                prompt = msgs[-1].get("content") if msgs else None
            else:
                given_key = h.get("x-goog-api-key", "")
                model = path.split("/models/", 1)[-1].removesuffix(":generateContent")
                contents = req.get("contents", [])
                prompt = contents[-1]["parts"][0].get("text") if contents else None
            found = None
            if isinstance(prompt, str):
                found = state.coreqa.find(prompt, model) or call_path_find(prompt) or state.tasks.find(prompt)
            name = found[2] if found else None
            kind = state.fault_for(name) if name else None
            with state.lock:
                state.requests.append(
                    {
                        "format": fmt,
                        "path": path,
                        "headers": sorted(h.keys()),
                        "browser_access": h.get("anthropic-dangerous-direct-browser-access"),
                        "body": req,
                        "task": None if not found else f"{found[0]}::{found[1]}::{found[2]}",
                        "fault": kind,
                    }
                )
                if kind:
                    state.faulted[kind] = state.faulted.get(kind, 0) + 1
            if state.args.key is not None and given_key != state.args.key:
                return self.send(*error_body(fmt, "401"))
            if fmt == "anthropic" and "origin" in h and h.get("anthropic-dangerous-direct-browser-access") != "true":
                return self.send(401, {"type": "error", "error": {"type": "authentication_error", "message": "CORS requests must set 'anthropic-dangerous-direct-browser-access' header"}})
            if state.args.model is not None and model != state.args.model:
                return self.send(*error_body(fmt, "404"))
            if not found and state.test_reply is not None and fmt == "openai":
                return self.send(200, openai_ok(model, state.test_reply, len(prompt) // 3, 3))
            if not found:
                return self.send(400, {"error": {"message": "test server: no known task in the prompt"}})
            ptoks = len(prompt) // 3
            if kind in ("401", "ctx", "500", "404"):
                return self.send(*error_body(fmt, kind, ptoks))
            if kind == "429":
                status, body = error_body(fmt, "429")
                return self.send(status, body, headers=[("Retry-After", "1")])
            if kind == "drop":
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if kind == "badjson":
                return self.send(200, '{"choices": [{"message": {"content": "cut')
            if kind == "redirect":
                port = self.server.server_address[1]
                return self.send(302, {}, headers=[("Location", f"http://127.0.0.1:{port}/landing")])
            if kind == "numcontent":
                body = openai_ok(model, "x", ptoks, 1)
                body["choices"][0]["message"]["content"] = 42
                return self.send(200, body)
            if kind == "gzipbomb":
                data = gzip_bomb()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(data)))
                self.cors_headers()
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client stopped reading: right
                return
            if state.slots is not None:
                state.slots.acquire()
            with state.lock:
                state.busy += 1
                state.max_busy = max(state.max_busy, state.busy)
            try:
                if kind == "slow":
                    time.sleep(state.args.slow_s)
                elif state.args.latency_s > 0:
                    time.sleep(state.args.latency_s)
            finally:
                with state.lock:
                    state.busy -= 1
                if state.slots is not None:
                    state.slots.release()
            text = found[3]
            if kind == "judgebad":
                text = "The candidate answer looks reasonable to me."
            if kind == "prefera":
                text = "The first answer is better.\n\nVerdict: A"
            if kind == "trunc":
                ptoks = 50
            if kind == "cut":
                text = text[: max(1, len(text) // 2)]
            thinking = reasoning_reply(fmt, model, req, found, ptoks, state.args.think_tokens)
            if thinking is not None:
                status, body = thinking
                if status == 200:
                    with state.lock:
                        tid = f"{found[0]}::{found[1]}::{found[2]}"
                        state.answered[tid] = state.answered.get(tid, 0) + 1
                return self.send(status, body, cors=kind != "nocors")
            body = OK[fmt]("other-model-9" if kind == "othermodel" else model, text, ptoks, max(1, len(text) // 3))
            if kind == "cut":
                if fmt == "openai":
                    body["choices"][0]["finish_reason"] = "length"
                elif fmt == "anthropic":
                    body["stop_reason"] = "max_tokens"
                else:
                    body["candidates"][0]["finishReason"] = "MAX_TOKENS"
            with state.lock:
                tid = f"{found[0]}::{found[1]}::{found[2]}"
                state.answered[tid] = state.answered.get(tid, 0) + 1
            self.send(200, body, cors=kind != "nocors")

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", help="RepoQA dataset JSON (needed unless --zero)")
    ap.add_argument("--key", help="the accepted API key (default: any)")
    ap.add_argument("--model", help="the accepted model name (default: any)")
    ap.add_argument("--models", help="comma-separated names GET …/models lists (default: no such route)")
    ap.add_argument("--no-cors", action="store_true", help="send no CORS headers")
    ap.add_argument("--fault", action="append", default=[], help="NAME=KIND[,KIND...]")
    ap.add_argument("--slow-s", type=float, default=3.0)
    ap.add_argument("--latency-s", type=float, default=0.0, help="time each answer takes")
    ap.add_argument("--slots", type=int, default=0, help="answer this many requests at a time (0: any number)")
    ap.add_argument("--props", action="store_true", help="GET /props gives total_slots, as llama.cpp")
    ap.add_argument("--n-ctx", type=int, default=8192, help="the context window GET /props reports")
    ap.add_argument("--zero", action="store_true", help="answer every request at once (benchmarks)")
    ap.add_argument("--think-tokens", type=int, default=2000, help="the tokens a reasoning model's thinking takes")
    ap.add_argument("--coreqa", help="CoReQA QA file (JSON list or JSONL) whose questions are answered and judged")
    args = ap.parse_args()
    tasks = Tasks({})
    if args.dataset:
        with open(args.dataset, encoding="utf-8") as f:
            tasks = Tasks(json.load(f))
    state = State(args, tasks)
    state.coreqa = Coreqa(args.coreqa)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
