"""`serbench build`: a recipe with an offline flag tries offline first, then online; the
drivers-only build (`serbench demo`, `scripts/setup demo`) compiles no test code, the full one
(`make test`) does."""
import os
import re
import stat

import pytest
from click.testing import CliRunner

from serbench.drivers import build as build_module
from serbench.cli import data as cli_data
from serbench.cli import drivers as cli_drivers
from serbench.cli import run as cli_run

from conftest import require


def fake_tool(tmp_path, name):
    """A tool that fails offline (`-o`) and otherwise logs its arguments."""
    tool = tmp_path / name
    log = tmp_path / "calls.log"
    tool.write_text(f'#!/bin/sh\necho "$*" >> {log}\n[ "$1" = "-o" ] && exit 1\nexit 0\n')
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return tool, log


def test_an_offline_failure_is_retried_online(tmp_path, monkeypatch):
    tool, log = fake_tool(tmp_path, "fakemvn")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    project = tmp_path / "pom.xml"
    project.write_text("")
    recipe = build_module.Recipe(project, ("fakemvn",), "hint", (("fakemvn", "package"),),
                                 offline_flag="-o")
    monkeypatch.setattr(build_module, "RECIPES", {"java": recipe})
    assert build_module.build(("java",), say=lambda m: None) == ["java"]
    assert log.read_text().splitlines() == ["-o package", "package"]


def test_an_offline_success_is_not_repeated(tmp_path, monkeypatch):
    tool, log = fake_tool(tmp_path, "fakemvn")
    tool.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexit 0\n')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    project = tmp_path / "pom.xml"
    project.write_text("")
    recipe = build_module.Recipe(project, ("fakemvn",), "hint", (("fakemvn", "package"),),
                                 offline_flag="-o")
    monkeypatch.setattr(build_module, "RECIPES", {"java": recipe})
    build_module.build(("java",), say=lambda m: None)
    assert log.read_text().splitlines() == ["-o package"]


def test_a_source_newer_than_the_driver_build_is_named(tmp_path, monkeypatch):
    drivers = tmp_path / "drivers"
    artifact = drivers / "rust" / "target" / "release" / "serbench-rust"
    artifact.parent.mkdir(parents=True)
    source = drivers / "rust" / "driver" / "src" / "lib.rs"
    source.parent.mkdir(parents=True)
    (tmp_path / "schemas").mkdir()
    source.write_text("old")
    artifact.write_text("built")
    os.utime(source, (1_000, 1_000))
    os.utime(artifact, (2_000, 2_000))
    monkeypatch.setattr(build_module, "REPO", tmp_path)
    monkeypatch.setattr(build_module, "DRIVERS", drivers)
    monkeypatch.setitem(build_module.ARTIFACTS, "rust", artifact)
    assert build_module.stale_source("rust") is None
    output = artifact.parent / "serbench-rust.d"  # build outputs never count
    output.write_text("later")
    os.utime(output, (3_000, 3_000))
    assert build_module.stale_source("rust") is None
    os.utime(source, (3_000, 3_000))
    assert build_module.stale_source("rust") == source


def test_a_successful_build_leaves_the_driver_current(tmp_path, monkeypatch):
    """A build whose tool relinked nothing (only a test's flags changed) still counts."""
    tool, _ = fake_tool(tmp_path, "fakecargo")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    drivers = tmp_path / "drivers"
    artifact = drivers / "rust" / "target" / "release" / "serbench-rust"
    artifact.parent.mkdir(parents=True)
    artifact.write_text("built")
    source = drivers / "rust" / "Cargo.toml"
    source.write_text("[workspace]")
    (tmp_path / "schemas").mkdir()
    os.utime(artifact, (1_000, 1_000))
    monkeypatch.setattr(build_module, "REPO", tmp_path)
    monkeypatch.setattr(build_module, "DRIVERS", drivers)
    monkeypatch.setitem(build_module.ARTIFACTS, "rust", artifact)
    recipe = build_module.Recipe(source, ("fakecargo",), "hint", (("fakecargo", "build"),))
    monkeypatch.setattr(build_module, "RECIPES", {"rust": recipe})
    assert build_module.stale_source("rust") == source
    build_module.build(("rust",), say=lambda m: None)
    assert build_module.stale_source("rust") is None


def cpp_commands(drivers_only):
    configure, build = build_module.RECIPES["cpp"].commands_for(drivers_only)
    assert configure[:1] == ("cmake",) and "-B" in configure
    assert build[:2] == ("cmake", "--build")
    return configure, build


def test_the_drivers_only_build_compiles_no_test_code():
    configure, build = cpp_commands(drivers_only=True)
    # GoogleTest is neither looked for nor built: the demo installs no libgtest-dev
    assert "-DSERBENCH_TESTS=OFF" in configure
    assert build[-2:] == ("--target", "serbench-cpp")
    assert not any("tests" in part for part in build)
    (java,) = build_module.RECIPES["java"].commands_for(drivers_only=True)
    assert "-Dmaven.test.skip=true" in java and "package" in java
    assert "-DskipTests" not in java  # that one compiles the tests


def test_the_full_build_compiles_the_tests():
    configure, build = cpp_commands(drivers_only=False)
    # explicitly ON: the option stays in CMake's cache, and a demo may have set it OFF in the
    # same build directory (scripts/test builds its own, sanitized test binary)
    assert "-DSERBENCH_TESTS=ON" in configure
    assert "--target" not in build
    demo_configure = cpp_commands(drivers_only=True)[0]
    assert configure[configure.index("-B") + 1] == demo_configure[demo_configure.index("-B") + 1]
    (java,) = build_module.RECIPES["java"].commands_for(drivers_only=False)
    assert "-DskipTests" in java
    assert not any("maven.test.skip" in part for part in java)


def test_the_cmake_project_has_what_the_recipes_name():
    """The target the drivers-only build asks for exists, and GoogleTest is needed only with
    SERBENCH_TESTS."""
    text = (build_module.CPP_SOURCE / "CMakeLists.txt").read_text()
    assert re.search(r"^add_executable\(serbench-cpp\s", text, re.M)
    assert re.search(r'^option\(SERBENCH_TESTS\s', text, re.M)
    tests_block = re.search(r"^if\(SERBENCH_TESTS\)\n(.*?)^endif\(\)", text, re.M | re.S)
    assert tests_block and "find_package(GTest" in tests_block.group(1)
    assert text.count("find_package(GTest") == 1


def test_build_runs_the_recipe_of_its_kind(tmp_path, monkeypatch):
    _, log = fake_tool(tmp_path, "fakecmake")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    project = tmp_path / "CMakeLists.txt"
    project.write_text("")
    recipe = build_module.Recipe(project, ("fakecmake",), "hint",
                                 (("fakecmake", "all"),),
                                 driver_commands=(("fakecmake", "driver"),))
    monkeypatch.setattr(build_module, "RECIPES", {"cpp": recipe})
    monkeypatch.setitem(build_module.ARTIFACTS, "cpp", tmp_path / "absent")
    build_module.build(("cpp",), say=lambda m: None, drivers_only=True)
    build_module.build(("cpp",), say=lambda m: None)
    assert log.read_text().splitlines() == ["driver", "all"]


def test_the_cli_and_the_demo_choose_the_drivers_only_build(monkeypatch):
    calls = []
    monkeypatch.setattr(build_module, "build",
                        lambda languages, say, drivers_only=False: calls.append(drivers_only) or [])
    assert CliRunner().invoke(cli_drivers.build_command, ["--drivers-only"]).exit_code == 0
    assert CliRunner().invoke(cli_drivers.build_command, []).exit_code == 0
    assert calls == [True, False]
    assert "--drivers-only" in CliRunner().invoke(cli_drivers.build_command, ["--help"]).output


def test_the_demo_builds_only_drivers_out_of_date_and_only_the_drivers(monkeypatch):
    calls = []
    monkeypatch.setattr(build_module, "build", lambda languages, say, drivers_only=False:
                        calls.append((tuple(languages), drivers_only)) or [])
    monkeypatch.setattr(cli_data, "data_default", lambda: None)
    monkeypatch.setattr(cli_run, "run_command", lambda **options: "run-1")
    monkeypatch.setattr(cli_run, "write_report", lambda run_id: None)
    out_of_date = {"cpp"}
    monkeypatch.setattr(build_module, "needs_build", lambda language: language in out_of_date)
    result = CliRunner().invoke(cli_run.demo_command, [], catch_exceptions=False)
    assert result.exit_code == 0 and calls == [(("cpp",), True)]
    out_of_date.clear()
    calls.clear()
    result = CliRunner().invoke(cli_run.demo_command, [], catch_exceptions=False)
    assert result.exit_code == 0 and calls == []


def test_a_driver_missing_or_older_than_a_source_needs_a_build(tmp_path, monkeypatch):
    drivers = tmp_path / "drivers"
    artifact = drivers / "java" / "target" / "serbench-java.jar"
    source = drivers / "java" / "src" / "Main.java"
    source.parent.mkdir(parents=True)
    source.write_text("class Main {}")
    (tmp_path / "schemas").mkdir()
    monkeypatch.setattr(build_module, "REPO", tmp_path)
    monkeypatch.setattr(build_module, "DRIVERS", drivers)
    monkeypatch.setitem(build_module.ARTIFACTS, "java", artifact)
    assert build_module.needs_build("java")
    artifact.parent.mkdir(parents=True)
    artifact.write_text("jar")
    os.utime(source, (1_000, 1_000))
    assert not build_module.needs_build("java")
    os.utime(source, (artifact.stat().st_mtime + 10,) * 2)
    assert build_module.needs_build("java")


def test_java_is_stale_after_a_change_of_the_model_it_generates_its_classes_from(
        tmp_path, monkeypatch):
    artifact = tmp_path / "drivers" / "java" / "target" / "serbench-java.jar"
    artifact.parent.mkdir(parents=True)
    artifact.write_text("jar")
    (tmp_path / "schemas").mkdir()
    model = tmp_path / "harness" / "serbench" / "models" / "__init__.py"
    model.parent.mkdir(parents=True)
    model.write_text("STRUCTS = {}")
    os.utime(model, (1_000, 1_000))
    monkeypatch.setattr(build_module, "REPO", tmp_path)
    monkeypatch.setattr(build_module, "DRIVERS", tmp_path / "drivers")
    monkeypatch.setitem(build_module.ARTIFACTS, "java", artifact)
    assert build_module.stale_source("java") is None
    os.utime(model, (artifact.stat().st_mtime + 10,) * 2)
    assert build_module.stale_source("java") == model


def waiting_tool(tmp_path, name, other):
    """A tool that marks itself started, then waits (up to 10 s) for the other one to start:
    it fails unless both run at the same time."""
    tool = tmp_path / name
    tool.write_text(f'#!/bin/sh\ntouch {tmp_path}/{name}.started\necho "{name} says hi"\n'
                    f'for i in $(seq 100); do [ -f {tmp_path}/{other}.started ] && exit 0; '
                    f'sleep 0.1; done\nexit 3\n')
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    project = tmp_path / f"{name}.project"
    project.write_text("")
    return build_module.Recipe(project, (str(tool),), "hint", ((str(tool),),))


def test_the_languages_build_at_the_same_time_each_line_named(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(build_module, "RECIPES", {
        "rust": waiting_tool(tmp_path, "fakecargo", "fakecmake"),
        "cpp": waiting_tool(tmp_path, "fakecmake", "fakecargo")})
    monkeypatch.setattr(build_module, "ARTIFACTS", {})
    assert build_module.build(("rust", "cpp"), say=lambda m: None) == ["rust", "cpp"]
    err = capfd.readouterr().err.splitlines()
    assert "rust | fakecargo says hi" in err and "cpp  | fakecmake says hi" in err


def test_a_failed_language_is_named_and_the_others_finish(tmp_path, monkeypatch):
    _, log = fake_tool(tmp_path, "fakecmake")
    failing = tmp_path / "fakecargo"
    failing.write_text("#!/bin/sh\necho broken\nexit 7\n")
    failing.chmod(failing.stat().st_mode | stat.S_IEXEC)
    project = tmp_path / "project"
    project.write_text("")
    monkeypatch.setattr(build_module, "RECIPES", {
        "rust": build_module.Recipe(project, (str(failing),), "hint", ((str(failing),),)),
        "cpp": build_module.Recipe(project, ("sh",), "hint", ((str(tmp_path / "fakecmake"), "all"),))})
    monkeypatch.setattr(build_module, "ARTIFACTS", {})
    with pytest.raises(build_module.BuildError, match=r"rust: .*fakecargo.* failed \(exit 7\)"):
        build_module.build(("rust", "cpp"), say=lambda m: None)
    assert log.read_text().splitlines() == ["all"]


def test_cargo_uses_sccache_where_installed_and_never_needs_it():
    found = {"sccache": "/opt/bin/sccache"}.get
    assert build_module.compiler_cache_env({"PATH": "x"}, found)["RUSTC_WRAPPER"] == \
        "/opt/bin/sccache"
    assert "RUSTC_WRAPPER" not in build_module.compiler_cache_env({"PATH": "x"}, lambda _: None)
    # the user's own wrapper (or an empty one: no wrapper) wins
    assert build_module.compiler_cache_env({"RUSTC_WRAPPER": ""}, found)["RUSTC_WRAPPER"] == ""


@pytest.mark.parametrize("cache", ["ccache", None])
def test_the_cpp_build_compiles_through_a_compiler_cache_only_where_one_is_installed(
        tmp_path, cache):
    """A real configure of the driver's project: with a `ccache` first on PATH (here a
    launcher that only runs the compiler) every compile goes through it; without one, none."""
    import shutil
    import subprocess
    tools = tmp_path / "tools"
    tools.mkdir()
    if cache:
        launcher = tools / cache
        launcher.write_text('#!/bin/sh\nexec "$@"\n')
        launcher.chmod(0o755)
    path = os.environ["PATH"] if cache else ":".join(
        d for d in os.environ["PATH"].split(":")
        if not any(os.path.exists(os.path.join(d, c)) for c in ("ccache", "sccache")))
    require(shutil.which("cmake"), "cmake is not installed")
    subprocess.run(["cmake", "-S", str(build_module.CPP_SOURCE), "-B", str(tmp_path / "b"),
                    "-DSERBENCH_TESTS=OFF"], env={**os.environ, "PATH": f"{tools}:{path}"},
                   check=True, capture_output=True)
    rules = (tmp_path / "b" / "CMakeFiles" / "serbench-cpp.dir" / "build.make").read_text()
    compiles = [line for line in rules.splitlines() if " -c " in line and "main.cpp" in line]
    assert compiles and all((str(tools / "ccache") in line) == bool(cache) for line in compiles)
