#!/usr/bin/env python3
"""Checks that a README command installs everything its configure step finds.

`scripts/demo.sh` and `scripts/test.sh` each install some groups of
`scripts/install-deps.sh`, then configure and build. On a fresh Debian 12
machine only those groups' packages (and what they depend on) are there, so
every file the configure step finds must come from them. This script runs
the configure steps the command runs, in a scratch folder, with the PATH of a
fresh machine and `cmake --trace-expand`, and collects:

  - each find_package / find_program / find_library / find_path / find_file
    that Mote's own CMake files (and the toolchain files) call, and the calls
    CMake's Find modules make for them, with whether it is REQUIRED;
  - the compilers and the build program CMake settles on;
  - each `if(EXISTS /usr/...)` (a system file) in Mote's files that holds;
  - for demo.sh, the emulators and size tools its table of targets runs.

It then maps each found file to its Debian package (dpkg -S) and checks the
package is in the closure, over Depends and Pre-Depends, of the command's
groups plus the packages every Debian system has (Essential or Priority
required). A required file from elsewhere fails the check; an optional one
that another group installs (bench, say) is listed as optional.

Usage: check_install_deps.py --source <mote> --command demo|test --work <dir>
                             [--motec <motec>]   (demo: configures the example)
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

FRESH_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
FIND_COMMANDS = {"find_program", "find_library", "find_path", "find_file"}
FIND_KEYWORDS = {"NAMES", "HINTS", "PATHS", "PATH_SUFFIXES", "DOC", "REQUIRED", "NO_DEFAULT_PATH",
                 "NAMES_PER_DIR", "NO_CMAKE_PATH", "NO_CACHE", "ENV", "VALIDATOR"}


def run(args, **kwargs):
    return subprocess.run(args, check=True, text=True, capture_output=True, **kwargs).stdout


# ---- what the command installs ----------------------------------------------

def command_groups(script_text):
    match = re.search(r'install-deps\.sh"?\s+([a-z ]+)$', script_text, re.MULTILINE)
    if not match:
        sys.exit("error: the script does not call install-deps.sh with its groups")
    return match.group(1).split()


def all_groups(install_deps_text):
    return re.findall(r"^\s+([a-z]+)\) packages\+=", install_deps_text, re.MULTILINE)


def group_packages(install_deps, groups):
    return run([install_deps, "--list"] + groups).split()


def installed_packages():
    """name -> (dependency alternatives, essential-or-required)."""
    fields = "${Package}\t${Status}\t${Essential}\t${Priority}\t${Depends}\t${Pre-Depends}\t${Provides}\n"
    packages, provides = {}, {}
    for line in run(["dpkg-query", "-W", "-f", fields]).splitlines():
        name, status, essential, priority, depends, pre_depends, provided = line.split("\t")
        if not status.endswith("installed") or status.endswith("not-installed"):
            continue
        alternatives = []
        for item in filter(None, (depends + "," + pre_depends).split(",")):
            names = [re.sub(r"[\s(].*|:.*", "", choice.strip()) for choice in item.split("|")]
            alternatives.append([n for n in names if n])
        packages[name] = (alternatives, essential == "yes" or priority == "required")
        for item in filter(None, provided.split(",")):
            provides.setdefault(re.sub(r"[\s(].*", "", item.strip()), []).append(name)
    return packages, provides


def closure(roots, packages, provides):
    """Packages apt would install for `roots` (the first installed alternative
    of each dependency), with everything they depend on."""
    seen, stack = set(), list(roots)
    while stack:
        name = stack.pop()
        for candidate in [name] + provides.get(name, []):
            if candidate in packages:
                name = candidate
                break
        else:
            continue
        if name in seen:
            continue
        seen.add(name)
        for choices in packages[name][0]:
            installed = [c for c in choices if c in packages or c in provides]
            if installed:
                stack.append(installed[0])
    return seen


def owner(path):
    """The Debian package holding `path`, or None."""
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):
        if p.startswith("/usr/"):
            candidates.append(p[4:])  # merged /usr: dpkg may know /bin/x as such
        elif re.match(r"/(bin|sbin|lib)", p):
            candidates.append("/usr" + p)
    for p in candidates:
        result = subprocess.run(["dpkg", "-S", p], text=True, capture_output=True)
        if result.returncode == 0:
            return result.stdout.split(":")[0].split(",")[0].strip()
    # A copy a package's install script made (picolibc puts its .specs next to
    # GCC's): the package that ships a file of that name with the same bytes.
    result = subprocess.run(["dpkg", "-S", "*/" + os.path.basename(path)], text=True,
                            capture_output=True)
    for line in result.stdout.splitlines():
        package, shipped = line.split(": ", 1)
        if os.path.isfile(shipped) and os.path.isfile(path) and \
                open(shipped, "rb").read() == open(path, "rb").read():
            return package.split(",")[0].strip()
    return None


# ---- what configuring finds -------------------------------------------------

def found_file(command, args, value):
    """The file a find_* call found: its result, or for find_path the header
    inside the folder it returned."""
    if command != "find_path":
        return value
    names = []
    rest = args[1:]
    if rest and rest[0] == "NAMES":
        for item in rest[1:]:
            if item in FIND_KEYWORDS:
                break
            names += item.split(";")
    elif rest:
        names = rest[0].split(";")
    for name in names:
        candidate = os.path.join(value, name)
        if os.path.exists(candidate):
            return candidate
    return value


def read_cache(build):
    cache = {}
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            match = re.match(r"([^#/][^:]*):[A-Z]+=(.*)$", line.rstrip("\n"))
            if match:
                cache[match.group(1)] = match.group(2)
    return cache


def trace_finds(trace_path, source):
    """(kind, variable or path, required, where) for what Mote's files look for."""
    modules = None
    source = os.path.realpath(source)
    finds, contexts = [], []  # contexts: (frame, required, checked) of open find_package calls
    with open(trace_path) as f:
        for line in f:
            entry = json.loads(line)
            if "cmd" not in entry:
                continue
            frame, file = entry["frame"], os.path.realpath(entry["file"])
            while contexts and contexts[-1][0] >= frame:
                contexts.pop()
            command, args = entry["cmd"].lower(), entry["args"]
            where = f"{os.path.relpath(file, source) if file.startswith(source) else file}:{entry['line']}"
            ours = file.startswith(source + os.sep)
            if modules is None and "/Modules/" in file:
                modules = file[: file.index("/Modules/") + len("/Modules/")]
            in_module = modules is not None and file.startswith(modules)
            checked = ours or (in_module and bool(contexts) and contexts[-1][2])
            inherited = bool(contexts) and contexts[-1][1]
            if command == "find_package":
                required = "REQUIRED" in args
                contexts.append((frame, required, checked))
                if checked:
                    finds.append(("package", args[0], required, where))
            elif command in FIND_COMMANDS and checked:
                required = "REQUIRED" in args or (not ours and inherited)
                finds.append((command, args, required, where))
            elif command == "if" and ours and "EXISTS" in args[:-1]:
                # Only system files: a data folder such as ../shared is no package.
                path = args[args.index("EXISTS") + 1]
                if re.match(r"/(usr/(?!local/)|bin/|sbin/|lib|etc/)", path):
                    finds.append(("exists", path, False, where))
    return finds


def configure(source, build, args, env, log):
    os.makedirs(build, exist_ok=True)
    trace = os.path.join(build, "trace.json")
    command = ["cmake", "-S", source, "-B", build, "--trace-expand", "--trace-format=json-v1",
               f"--trace-redirect={trace}"] + args
    result = subprocess.run(command, env=env, text=True, capture_output=True)
    with open(log, "a") as f:
        f.write(" ".join(command) + "\n" + result.stdout + result.stderr)
    if result.returncode != 0:
        print(f"FAIL: configuring {source} with PATH={FRESH_PATH} failed:\n{result.stderr[-3000:]}")
        return None
    return trace


def toolchain_files(build, cache):
    """(what, path) for the compilers CMake settled on (a toolchain file's
    are not cached, so they are read from CMakeFiles/<version>/), the build
    program, and the spec files (--specs=picolibc.specs) the flags name."""
    found = [("CMAKE_MAKE_PROGRAM", cache.get("CMAKE_MAKE_PROGRAM"))]
    compilers = {}
    for name in glob.glob(os.path.join(build, "CMakeFiles", "*", "CMake*Compiler.cmake")):
        text = open(name).read()
        for tool, path in re.findall(r'set\((CMAKE_\w+_COMPILER|CMAKE_AR|CMAKE_LINKER) "(/[^"]+)"\)', text):
            compilers[tool] = path
    found += sorted(compilers.items())
    compiler = compilers.get("CMAKE_C_COMPILER")
    for spec in re.findall(r"--specs=(\S+)", cache.get("CMAKE_C_FLAGS", "")):
        if compiler:
            path = run([compiler, f"-print-file-name={spec}"]).strip()
            found.append((f"{os.path.basename(compiler)} --specs={spec}", path if os.path.isabs(path) else None))
    return found


def collect(source, build, trace):
    """(what, path, required) for every file this configure depends on."""
    cache = read_cache(build)
    found = [(what, path, True) for what, path in toolchain_files(build, cache) if path]
    for kind, detail, required, where in trace_finds(trace, source):
        if kind == "package":
            folder = cache.get(f"{detail}_DIR", "")
            if folder and not folder.endswith("NOTFOUND"):
                configs = [os.path.join(folder, n) for n in os.listdir(folder)
                           if n.lower() in (f"{detail.lower()}config.cmake", f"{detail.lower()}-config.cmake")]
                found.append((f"find_package({detail}) at {where}", configs[0] if configs else folder, required))
        elif kind == "exists":
            if os.path.exists(detail):
                found.append((f"if(EXISTS) at {where}", detail, True))
        else:
            variable = detail[0]
            value = cache.get(variable, "")
            if value and not value.endswith("NOTFOUND"):
                path = found_file(kind, detail, value.split(";")[0])
                found.append((f"{kind}({variable}) at {where}", path, required))
            elif required:
                found.append((f"{kind}({variable}) at {where}", None, True))
    return found


def demo_targets(demo_text):
    """(toolchain, size tool, runner program) from demo.sh's table of targets."""
    rows = re.findall(r'^\s*"([^"|]*)\|([^|]*)\|([^|]*)\|([^"]*)"\s*$', demo_text, re.MULTILINE)
    return [(toolchain, size, runner.split()[0]) for _, toolchain, size, runner in rows]


def build_args(script_text):
    """The CMake options the script gives scripts/build.sh for a new build
    folder (the last call in the script)."""
    calls = re.findall(r'scripts/build\.sh"?([^\n]*)$', script_text, re.MULTILINE)
    return calls[-1].split() if calls else []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--command", choices=["demo", "test"], required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--motec")
    options = parser.parse_args()
    source = os.path.realpath(options.source)
    script = os.path.join(source, "scripts", options.command + ".sh")
    install_deps = os.path.join(source, "scripts", "install-deps.sh")
    script_text = open(script).read()

    groups = command_groups(script_text)
    packages, provides = installed_packages()
    base = {name for name, (_, basic) in packages.items() if basic}
    ours = closure(group_packages(install_deps, groups), packages, provides) | closure(base, packages, provides)
    others = {}
    for group in all_groups(open(install_deps).read()):
        if group not in groups:
            for name in closure(group_packages(install_deps, [group]), packages, provides) - ours:
                others.setdefault(name, group)
    print(f"scripts/{options.command}.sh installs groups {' '.join(groups)}: "
          f"{len(ours)} packages with their dependencies and the base system")

    shutil.rmtree(options.work, ignore_errors=True)
    os.makedirs(options.work)
    log = os.path.join(options.work, "configure.log")
    env = {"PATH": FRESH_PATH, "HOME": options.work, "LANG": "C.UTF-8"}
    found = []
    # As scripts/build.sh configures a new build folder.
    mote_args = ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DCMAKE_C_COMPILER=clang-16",
                 "-DCMAKE_CXX_COMPILER=clang++-16"] + build_args(script_text)
    build = os.path.join(options.work, "mote")
    trace = configure(source, build, mote_args, env, log)
    if trace is None:
        return 1
    found += collect(source, build, trace)
    if options.command == "demo":
        if not options.motec:
            sys.exit("error: --motec is needed to configure the demo's example")
        for toolchain, size, runner in demo_targets(script_text):
            build = os.path.join(options.work, "digits-" + toolchain)
            args = ["-G", "Ninja", f"-DMOTE_MOTEC={options.motec}",
                    f"-DCMAKE_TOOLCHAIN_FILE={source}/cmake/toolchains/{toolchain}.cmake"]
            trace = configure(os.path.join(source, "examples", "digits"), build, args, env, log)
            if trace is None:
                return 1
            found += collect(source, build, trace)
            for program in filter(None, (size, runner)):
                path = shutil.which(program, path=FRESH_PATH)
                found.append((f"demo.sh runs {program}", path, True))

    failures, seen = 0, set()
    for what, path, required in found:
        if (what, path) in seen:
            continue
        seen.add((what, path))
        if path is None:
            print(f"FAIL  {what}: not found")
            failures += 1
            continue
        package = owner(path)
        if package in ours:
            verdict = "ok"
        elif package is None:
            verdict = "FAIL (no Debian package holds it)"
        elif not required and package in others:
            verdict = f"optional (group {others[package]})"
        else:
            verdict = f"FAIL ({package} is in none of: {' '.join(groups)})"
        failures += verdict.startswith("FAIL")
        print(f"{verdict:8s}  {what}: {path} [{package}]")
    print(f"{len(seen)} files checked, {failures} not installed by scripts/{options.command}.sh")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
