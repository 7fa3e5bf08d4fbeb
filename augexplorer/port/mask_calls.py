"""The calls of a file that give a mask beside an image, read without running it."""

from __future__ import annotations

import ast


def mask_calls(tree: ast.AST) -> tuple[str, ...]:
    """The file's calls that give a mask beside an image (``self.transforms(image=img,
    mask=mask)``), each as ``line N: text``: albumentations' way of moving masks."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        given = {k.arg for k in node.keywords}
        if given & {"image", "images"} and given & {"mask", "masks"}:
            text = " ".join(ast.unparse(node).split())
            text = text if len(text) <= 70 else text[:67] + "..."
            found.append((node.lineno, f"line {node.lineno}: {text}"))
    return tuple(text for _, text in sorted(found))
