"""The release (harness/_version.py): one number, the package's and its metadata's."""

from importlib.metadata import version

import harness
from harness._version import __version__


def test_the_release_is_the_packages_and_its_metadatas() -> None:
    assert harness.__version__ == __version__ == version("prefix-harness")
