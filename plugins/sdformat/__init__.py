"""SDFormat reader and writer (the format Snapframe's composition engine is built on)."""

from snapframe.core.formats import FormatDescriptor

FORMAT = FormatDescriptor(
    name="sdformat",
    label="SDFormat",
    extensions=(".sdf", ".world"),
    implementation="snapframe.plugins.sdformat.format",
    can_read=True,
    can_write=True,
    can_include=True,
    can_flatten=True,
)
