"""`serbench build`: a recipe with an offline flag tries offline first, then online."""
import os
import stat

from serbench import build as build_module


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
