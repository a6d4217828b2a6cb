#!/usr/bin/env python3
"""Kit.Explain: the CPU backend's measurements for ./lab explain (lab/cpu/explain.hpp), on the
references of rungs 01-03 and a planted mistake, against numbers worked out by hand.

    explain_test.py TOOLS_DIR PLANTED
        TOOLS_DIR: build/cpu-solutions/bin (lab-explain-NN, the references)
        PLANTED: the program of tests/mutants.json's scattered_loads (lab-explain-mutant-scattered_loads)

Each program's JSON is checked against grader/schemas/explain.schema.json first. Then the page of
pictures (./lab explain --html) of the three references.

Rung 03 at n = 2^20, blocks of 256 (4096 blocks). Per block: 8 warps store their element into shared
memory (8 requests); the tree's steps with stride 128, 64, 32 have 4, 2, 1 warps at work and then
one warp for strides 16..1, each warp making 3 shared requests a step (partial[tid + stride] and
partial[tid] read, partial[tid] written); thread 0 reads partial[0]: 8 + 3 * (4 + 2 + 1 + 5) + 1 =
45 requests, every one conflict-free. (Measured with address sanitizer's instrumentation, which
checks an address once per statement, the write of `+=` went unseen: 33. Nsight Compute counted
45.6 on an H100, tests/kit/explain_gpu_test.py.) The device reads: 8 warps of 32 lanes x 4 bytes,
4 sectors each.
Rung 02 indexes slot 2 * stride * tid: at stride s the lanes of a warp reach words 2s apart, which
fall on 32 / 2s banks, so 2s lanes share a bank: 2-way at stride 1, 4-way at 2, 8-way at 4, and
from there as many ways as the warp has working lanes on one bank (8, 8, then 4, 2, 1 as the lanes
thin out), then 1 for thread 0's last read.
Rung 01 keeps the working threads spread over every warp: few active lanes per instruction.
Rung 08 reads its input as int4 (16 bytes a lane), which the host compiler splits into four 4-byte
loads: rejoined, its loads use every byte of the sectors they touch.
The planted mistake reads rung 03's input transposed (lane k of a warp reads element k * n / 32):
32 sectors per request where 4 would do.
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


import jsonschema

SCRATCH = tempfile.mkdtemp(prefix="lab-explain-test-")
MEASURED = {}  # each program's whole JSON
SCHEMA = Path(__file__).resolve().parents[2] / "grader" / "schemas" / "explain.schema.json"
VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))


def fail(message):
    print("FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def measure(tools, program):
    out = Path(SCRATCH) / f"{Path(program).name}.json"
    done = subprocess.run([str(tools / program), "--json", str(out)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        fail(f"{program} exited with {done.returncode}: {done.stdout}{done.stderr}")
    data = json.loads(out.read_text())
    problems = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in VALIDATOR.iter_errors(data)]
    if problems:
        fail(f"{program}'s JSON does not match grader/schemas/explain.schema.json: " + "; ".join(problems[:5]))
    if not data["instrumented"]:
        fail(f"{program} ran no instrumented code")
    if len(data["launches"]) != 1:
        fail(f"{program}: {len(data['launches'])} launches")
    MEASURED[program] = data
    return data["launches"][0]


def check_clusters(tools):
    """Rung 13's reference at one row of 2^18 floats (softmax; lab-explain-NN --cols, --variant).
    With clusters it launches one cluster of 8 blocks (Rows::plan: a row that wants many blocks and
    fits 8 blocks' shared memory), each block reading its 7 peers' partial through distributed shared
    memory: a Stats of 12 bytes, two loads (8 + 4 bytes), by each of its 8 warps: 8 x 8 x 7 x 2 = 896
    requests, and two cluster barriers per block, 16. Without clusters it splits the row over two
    launches that read it twice, and no block reads another's shared memory."""
    runs = {}
    for variant in ("clusters", "no_clusters"):
        out = Path(SCRATCH) / f"rows-{variant}.json"
        done = subprocess.run([str(tools / "lab-explain-13_any_row_shape"), "--json", str(out), "--op", "softmax", "--n", "262144",
                               "--cols", "262144", "--variant", variant], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            fail(f"lab-explain-13_any_row_shape --variant {variant} exited with {done.returncode}: {done.stdout}{done.stderr}")
        data = json.loads(out.read_text())
        problems = [e.message for e in VALIDATOR.iter_errors(data)]
        if problems:
            fail(f"lab-explain-13_any_row_shape's JSON does not match its schema: {problems[:3]}")
        runs[variant] = data
    total = lambda data, key: sum(l["total"][key] for l in data["launches"])
    checks = [
        ("13 clusters: launches", len(runs["clusters"]["launches"]), 1),
        ("13 clusters: blocks", runs["clusters"]["launches"][0]["grid"], 8),
        ("13 clusters: requests to another block's shared memory", total(runs["clusters"], "distributed_requests"), 896),
        ("13 clusters: cluster barriers", total(runs["clusters"], "cluster_barriers"), 16),
        ("13 clusters: bytes read", total(runs["clusters"], "global_read"), 4 << 18),
        ("13 clusters: the row length", runs["clusters"]["cols"], 262144),
        ("13 no_clusters: launches", len(runs["no_clusters"]["launches"]), 2),
        ("13 no_clusters: requests to another block's shared memory", total(runs["no_clusters"], "distributed_requests"), 0),
        # Its slices move through shared memory 16 bytes a lane: 4 wavefronts a warp's request at the
        # least, and no more (no bank conflict), though that is 3.8 wavefronts a request on average.
        ("13 clusters: wavefronts beyond the fewest its words fit in",
         total(runs["clusters"], "shared_wavefronts") - total(runs["clusters"], "shared_least_wavefronts"), 0),
    ]
    if not total(runs["clusters"], "shared_least_wavefronts") > 3 * total(runs["clusters"], "shared_requests"):
        fail("13 clusters: its 16-byte shared accesses need more than one wavefront a request: "
             f"{total(runs['clusters'], 'shared_least_wavefronts')} at the least for {total(runs['clusters'], 'shared_requests')}")
    for name, got, want in checks:
        if got != want:
            fail(f"{name}: {got}, by hand {want}")
    if total(runs["no_clusters"], "global_read") < 2 * (4 << 18):
        fail(f"13 no_clusters: read {total(runs['no_clusters'], 'global_read')} bytes; a split reads the row twice")


def per_step(launch, key_a, key_b):
    return [round(s[key_a] / s[key_b], 2) if s[key_b] else None for s in launch["steps"]]


def check_page(tools):
    """./lab explain --html's page (lab-explain-NN --page) of the three references: rung 01's block 0
    has lanes idle in working warps from step 1 and no bank conflict, 02 has 8-way conflicts, 03
    neither; opened in headless Chromium where there is one, with no console message."""
    page = Path(SCRATCH) / "explain.html"
    done = subprocess.run([str(tools / "lab-explain-03_sequential"), "--page", str(page)] +
                          [f"{name}={Path(SCRATCH) / (program + '.json')}" for name, program in
                           (("01", "lab-explain-01_interleaved"), ("02", "lab-explain-02_strided_index"),
                            ("03", "lab-explain-03_sequential"))],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        fail(f"--page exited with {done.returncode}: {done.stderr}")
    html = page.read_text()
    sections = {s.split("</h2>")[0]: s for s in html.split("<section><h2>")[1:]}
    if sorted(sections) != ["01", "02", "03"]:
        fail(f"the page's sections: {sorted(sections)}")
    if not all('<svg class="bytes"' in v and "4.19 MB" in v for v in sections.values()):
        fail("a section lacks its device-memory bars (4.19 MB: 2^20 ints read once)")
    idle = {k: v.count('class="idle"') for k, v in sections.items()}
    eight = {k: v.count('data-ways="8"') for k, v in sections.items()}
    # 01: at stride s, one thread in 2s works: every warp has idle lanes from step 1 (8 warps x 16 lanes, ...).
    # 03 and 02: the working threads fill whole warps until fewer than 32 work (steps 4-9 of one warp).
    if not (idle["01"] > 3 * idle["03"] > 0 and idle["02"] == idle["03"]):
        fail(f"idle lane cells by section: {idle}")
    if not (eight["02"] > 0 and eight["01"] == 0 and eight["03"] == 0):
        fail(f"8-way bank cells by section: {eight}")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("(no Chromium here: the page was not opened in a browser)")
        return
    opened = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
                             "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    console = [line for line in opened.stderr.splitlines() if ":CONSOLE" in line]
    if opened.returncode != 0 or console or "<svg" not in opened.stdout:
        fail(f"the page in Chromium: exit {opened.returncode}, console {console}")


def main():
    tools = Path(sys.argv[1])
    r01 = measure(tools, "lab-explain-01_interleaved")
    r02 = measure(tools, "lab-explain-02_strided_index")
    r03 = measure(tools, "lab-explain-03_sequential")
    planted = measure(tools, sys.argv[2])  # an absolute path: tools / it is it
    r08 = measure(tools, "lab-explain-08_warp_shuffle")
    blocks = 4096
    t03 = r03["total"]
    r03_data = MEASURED["lab-explain-03_sequential"]
    checks = [
        ("03: shared requests per block", t03["shared_requests"] / blocks, 45),
        ("03: wavefronts per shared request", t03["shared_wavefronts"] / t03["shared_requests"], 1),
        ("03: device loads per block", sum(s["global_requests"] for s in r03["steps"][:1]) / blocks, 8),
        ("03: sectors per load", r03["steps"][0]["global_sectors"] / r03["steps"][0]["global_requests"], 4),
        ("03: bytes read", t03["global_read"], 4 << 20),
        ("03: the least it could read", r03_data["least_read"], 4 << 20),
        ("03: barriers per block", t03["barriers"] / blocks, 9),
        ("02: wavefronts per request, step by step", per_step(r02, "shared_wavefronts", "shared_requests"),
         [1, 2, 4, 8, 8, 8, 4, 2, 1, 1]),
        ("02: shared requests per block", r02["total"]["shared_requests"] / blocks, 45),
        ("02: the fewest wavefronts its words fit in, one a request", r02["total"]["shared_least_wavefronts"],
         r02["total"]["shared_requests"]),
        ("01: wavefronts per shared request", r01["total"]["shared_wavefronts"] / r01["total"]["shared_requests"], 1),
        ("03: the fewest sectors per load", r03["steps"][0]["global_least_sectors"] / r03["steps"][0]["global_requests"], 4),
        ("planted: sectors per load", planted["steps"][0]["global_sectors"] / planted["steps"][0]["global_requests"], 32),
        ("planted: the fewest sectors per load", planted["steps"][0]["global_least_sectors"] / planted["steps"][0]["global_requests"], 4),
        ("08: sectors per load against the fewest (its int4 loads, split by the host compiler, rejoined)",
         round(r08["total"]["global_sectors"] / r08["total"]["global_least_sectors"], 2), 1),
        ("planted: shared requests per block, as 03", planted["total"]["shared_requests"] / blocks, 45),
    ]
    for name, got, want in checks:
        if got != want:
            fail(f"{name}: {got}, by hand {want}")
    lanes = {name: t["lanes"] / t["instructions"] for name, t in (("01", r01["total"]), ("02", r02["total"]), ("03", t03))}
    if not (lanes["01"] < 12 < 20 < lanes["02"] and abs(lanes["02"] - lanes["03"]) < 0.01):
        fail(f"active lanes per instruction: {lanes} (01 spreads its threads: under 12; 02 and 03 alike, over 20)")
    warps = {name: t["warps"] / blocks for name, t in (("01", r01["total"]), ("03", t03))}
    if warps["01"] < 2 * warps["03"]:
        fail(f"warps at work per block: {warps} (01 keeps every warp busy at every step)")
    check_page(tools)
    check_clusters(tools)
    print(f"03: 45 shared requests per block, conflict-free; 02: wavefronts per request by step "
          f"{per_step(r02, 'shared_wavefronts', 'shared_requests')}; lanes per instruction "
          f"{ {k: round(v, 1) for k, v in lanes.items()} }; the planted transposed read: 32 sectors per load; "
          f"13 at one long row: a cluster of 8 with 896 requests to its peers' shared memory, a split with none")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
