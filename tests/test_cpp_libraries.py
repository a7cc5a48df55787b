"""The C++ driver's `info` names the versions of the libraries it was built with: each is the
upstream version of the Debian package that installed the library's headers, an answer found
apart from the version macros and calls the driver reports."""
import json
import re
import shutil
import subprocess

from conftest import built_driver, require

# each library `info` names (all but the compiler's libstdc++) -> a header of it
HEADERS = {"rapidjson": "/usr/include/rapidjson/rapidjson.h",
           "libprotobuf": "/usr/include/google/protobuf/stubs/common.h",
           "flatbuffers": "/usr/include/flatbuffers/base.h",
           "capnproto": "/usr/include/capnp/common.h",
           "boost": "/usr/include/boost/version.hpp",
           "cereal": "/usr/include/cereal/version.hpp",
           "msgpack-cxx": "/usr/include/msgpack/version.hpp",
           "libbson": "/usr/include/libbson-1.0/bson/bson.h",
           "zlib": "/usr/include/zlib.h"}


def installed_version(header: str) -> str:
    """The upstream version of the package owning `header`: no epoch, Debian revision or
    repackaging suffix (`1:1.2.13.dfsg-1` is 1.2.13, `1.74.0+ds1-21` 1.74.0)."""
    owner = subprocess.run(["dpkg-query", "-S", header], capture_output=True, text=True,
                           check=True).stdout.split(":")[0]
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", owner],
                             capture_output=True, text=True, check=True).stdout
    return re.match(r"(?:\d+:)?(\d+(?:\.\d+)*)", version).group(1)


def test_info_names_the_versions_of_the_installed_libraries():
    require(shutil.which("dpkg-query") is not None, "no dpkg: the libraries' versions are "
                                                    "known from Debian's packages")
    info = json.loads(subprocess.run([str(built_driver("cpp")), "info"], capture_output=True,
                                     text=True, check=True).stdout)
    libraries = info["libraries"]
    assert set(libraries) - {"libstdc++"} == set(HEADERS)
    assert {name: libraries[name] for name in HEADERS} == {
        name: installed_version(header) for name, header in HEADERS.items()}
    for method, spec in info["methods"].items():
        for name, version in spec["libraries"].items():
            assert libraries.get(name) == version, f"{method}: {name}"
