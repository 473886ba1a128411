"""Write public/demo/sample-answers.jsonl: SAMPLE answers for the demo
dataset, written by this project (not a model's replies), so a first visit
has something on the Results page. Some are right, some wrong in ways worth
seeing (another function, truncated, prose only, edits under and over the
threshold, several code blocks). crates/repoqa/tests/it/sample_answers.rs scores the file and
pins the result.

    python3 scripts/sample_answers.py public/demo/sample-answers.jsonl
"""
import json, re, sys
d = json.load(open('public/demo/repoqa-demo.json'))
FENCE = {"python": "python", "cpp": "cpp", "java": "java", "typescript": "typescript", "rust": "rust", "go": "go"}

def needle(lang, name):
    r = d[lang][0]
    for n in r['needles']:
        if n['name'] == name:
            code = "\n".join(r['content'][n['path']].split("\n")[n['start_line']:n['end_line']])
            return r['repo'], n, code
    raise KeyError(name)

def fenced(lang, code):
    return f"```{FENCE[lang]}\n{code}\n```"

lines = []
def add(lang, name, reply, note):
    repo, n, _ = needle(lang, name)
    lines.append({"language": lang, "repo": repo, "name": name, "output": [reply],
                  "sample": "SAMPLE ANSWER written by the RepoQA Web project, not a model's reply: " + note})

# python
_, _, c = needle("python", "readability"); add("python", "readability", fenced("python", c), "right: the needle, verbatim, in a code block")
_, _, c = needle("python", "wrap"); lines_ = c.split("\n")
edited = c.replace("width", "max_width", 1)
add("python", "wrap", fenced("python", edited), "right function with a small edit (one name changed): similarity stays above 0.8")
# cpp
_, _, c = needle("cpp", "closest_pair_distance")
add("cpp", "closest_pair_distance", "Here is the function you describe:\n\n" + fenced("cpp", c) + "\n\nIt compares every pair of points and keeps the smallest distance.", "right: prose around the code block does not matter")
_, _, other = needle("cpp", "cross")
add("cpp", "format_number", fenced("cpp", other), "wrong: another function of the repo (cross), which is the best match instead of the needle")
# java
_, _, c = needle("java", "monthlyAdjustment")
add("java", "monthlyAdjustment", fenced("java", "\n".join(c.split("\n")[:5])), "truncated: only the first 5 of 13 lines; the right function, but below most thresholds")
add("java", "main", "The described function is `main` in src/bank/Ledger.java. It opens two accounts, moves money between them and prints the balances.", "prose only: no code, so the whole reply is compared and nothing passes")
# typescript
_, _, c = needle("typescript", "parseTasks")
add("typescript", "parseTasks", fenced("typescript", c), "right: the needle, verbatim")
_, _, c = needle("typescript", "mergeIntervals")
add("typescript", "mergeIntervals", c, "right, without a code block: the whole reply is taken as the function")
# rust
_, _, c = needle("rust", "matches_req")
add("rust", "matches_req", fenced("rust", c), "right: the needle, verbatim")
_, _, c = needle("rust", "pre_is_compatible")
add("rust", "pre_is_compatible", "Usage:\n" + fenced("rust", "let allowed = pre_is_compatible(cmp, ver);") + "\nThe function:\n" + fenced("rust", c), "right: the first code block holds no function, so the function of the 2nd block is compared")
# go
_, _, c = needle("go", "SplitCSVLine")
nocomment = "\n".join(l for l in c.split("\n") if not l.strip().startswith("//"))
add("go", "SplitCSVLine", fenced("go", nocomment), "right function without its comments")
_, _, c = needle("go", "summarize")
heavy = c.split("\n")
heavy = heavy[:len(heavy)//2] + ["\t// ... rest omitted ..."]
add("go", "summarize", fenced("go", "\n".join(heavy) + "\n}"), "the right function with half of it left out: best match, but under the 0.8 threshold")
with open(sys.argv[1], "w") as f:
    for l in lines:
        f.write(json.dumps(l) + "\n")
print(len(lines))
