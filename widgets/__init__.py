"""The augexplorer notebook panel."""
