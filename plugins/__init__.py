"""Built-in file formats, each registered through the ``snapframe.formats`` entry point."""
