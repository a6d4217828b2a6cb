#!/usr/bin/env python3
"""Runs one job of a CI template of grader/ci/ here, as its platform would, for the templates' test.

  run_ci_yaml.py github FILE JOB WORKDIR --kit KIT --submission DIR
  run_ci_yaml.py gitlab FILE JOB WORKDIR --kit KIT --submission DIR

GitHub: `actions/checkout` copies the submission (or, with `repository:`, the kit) to its `path`;
`run` steps run in bash in WORKDIR with the step's env (`${{ vars.X || 'd' }}` gives d,
`${{ vars.X }}` and secrets give ""), GITHUB_STEP_SUMMARY and a `sudo` that keeps the environment;
`actions/upload-artifact` checks that its paths exist. GitLab: WORKDIR is CI_PROJECT_DIR (a copy of
the submission); `before_script` fetches the kit over the network, so it is skipped and LAB_KIT
names the kit; `script` runs line by line; the JUnit report and the artifacts' paths must exist.
Prints what it checked; exits non-zero at the first thing that is not as the platform needs.
"""
import argparse, os, re, shutil, stat, subprocess, sys
import yaml

def fail(message):
    print(f"run_ci_yaml: FAILED: {message}", file=sys.stderr)
    sys.exit(1)

def expression(text, variables):
    def one(match):
        inner = match.group(1).strip()
        m = re.fullmatch(r"vars\.(\w+)\s*\|\|\s*'([^']*)'", inner)
        if m:
            return variables.get(m.group(1), m.group(2))
        m = re.fullmatch(r"vars\.(\w+)", inner)
        if m:
            return variables.get(m.group(1), "")
        if inner.startswith("secrets."):
            return ""
        fail(f"an expression this test does not know: ${{{{ {inner} }}}}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))

def shim_sudo(workdir):
    bin_dir = os.path.join(workdir, ".shim")
    os.makedirs(bin_dir, exist_ok=True)
    path = os.path.join(bin_dir, "sudo")
    with open(path, "w") as f:
        f.write('#!/bin/bash\nwhile [[ "$1" == -* ]]; do shift; done\nexec "$@"\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return bin_dir

def run(script, cwd, env):
    print(f"run_ci_yaml: $ {script}", flush=True)
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env).returncode

def github(doc, job_name, workdir, kit, submission):
    job = doc["jobs"].get(job_name) or fail(f"no job {job_name}")
    env = dict(os.environ, GITHUB_WORKSPACE=workdir, GITHUB_STEP_SUMMARY=os.path.join(workdir, "step-summary.md"))
    env["PATH"] = shim_sudo(workdir) + ":" + env["PATH"]
    variables = {"LAB_KIT_PATH": kit}
    for step in job["steps"]:
        uses, with_ = step.get("uses", ""), step.get("with", {}) or {}
        if uses.startswith("actions/checkout@"):
            target = os.path.join(workdir, with_.get("path", "."))
            if "repository" in with_:
                if "token" not in with_:
                    fail("the kit's checkout has no token (the kit's repository is private)")
                os.symlink(kit, target)  # the kit as built already (a checkout would build it afresh)
            else:
                shutil.copytree(submission, target, symlinks=True, dirs_exist_ok=True)
        elif uses.startswith("actions/upload-artifact@"):
            for path in str(with_.get("path", "")).split():
                if not os.path.exists(os.path.join(workdir, path)):
                    fail(f"the artifact's {path} was not written")
                print(f"run_ci_yaml: artifact {with_.get('name')}: {path}")
        elif "run" in step:
            step_env = dict(env)
            for key, value in (step.get("env") or {}).items():
                step_env[key] = expression(value, variables)
            if run(expression(step["run"], variables), workdir, step_env) != 0:
                fail(f"the step '{step.get('name')}' failed")
        else:
            fail(f"a step this test does not know: {step}")
    return job

def gitlab(doc, job_name, workdir, kit, submission):
    job = doc.get(job_name) or fail(f"no job {job_name}")
    shutil.copytree(submission, workdir, dirs_exist_ok=True)
    env = dict(os.environ, CI_PROJECT_DIR=workdir)
    for scope in (doc.get("variables") or {}, job.get("variables") or {}):
        env.update({k: str(v) for k, v in scope.items()})
    env["LAB_KIT"] = kit  # what before_script would have cloned
    for line in job["script"]:
        if run(line, workdir, env) != 0:
            fail(f"the script line '{line}' failed")
    artifacts = job.get("artifacts") or fail("the job keeps no artifacts")
    if artifacts.get("when") != "always":
        fail("the artifacts are not kept when the job fails")
    junit = artifacts["reports"]["junit"]
    for path in [junit] + artifacts.get("paths", []):
        if not os.path.exists(os.path.join(workdir, path)):
            fail(f"the artifact {path} was not written")
        print(f"run_ci_yaml: artifact {path}")
    return job

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("platform", choices=["github", "gitlab"])
    parser.add_argument("file")
    parser.add_argument("job")
    parser.add_argument("workdir")
    parser.add_argument("--kit", required=True)
    parser.add_argument("--submission", required=True)
    a = parser.parse_args()
    doc = yaml.safe_load(open(a.file))
    os.makedirs(a.workdir, exist_ok=True)
    workdir, kit, submission = (os.path.abspath(p) for p in (a.workdir, a.kit, a.submission))
    if a.platform == "github":
        github(doc, a.job, workdir, kit, submission)
    else:
        gitlab(doc, a.job, workdir, kit, submission)
    print(f"run_ci_yaml: {a.platform} job {a.job} ran as its platform would run it")

main()
