"""RandomPerspective: the corners the port drew, given to torchvision's own perspective warp,
give the port's pixels (within the bound grades.py states); the corners are drawn as
torchvision draws them (KS tests)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from typing import Any

import numpy as np
import pytest
from port_parity import difference, ks_statistic, ported, sample_images

from augexplorer import Session
from augexplorer.port.torchvision.grades import GRADES

THEIRS = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torch
    import torchvision.transforms as T
    import torchvision.transforms.functional as F
    from PIL import Image
    job = json.load(open(sys.argv[1]))
    out = {}
    for index, (path, corners) in enumerate(zip(job["images"], job["corners"])):
        image = Image.open(path).convert("RGB")
        w, h = image.size
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        out[f"warped_{index}"] = np.asarray(F.perspective(image, start, corners))
    torch.manual_seed(3)
    drawn = []
    for w, h in job["sizes"]:
        _, end = T.RandomPerspective.get_params(w, h, 0.5)
        drawn.append(end)
    out["drawn"] = np.asarray(drawn, dtype=np.float64)
    np.savez(sys.argv[2], **out)
    """
)


@pytest.fixture(scope="module")
def compared(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("perspective")
    images = sample_images(12) * 20
    result = ported("T.RandomPerspective(0.5, p=1.0)", images, tmp)
    session = Session(result.spec, device_id=None).run()

    def values(node: str) -> np.ndarray:
        return np.asarray([float(np.asarray(a)) for a in session.arrays(node)])

    xs = np.stack([values(f"corner_x{i}") for i in range(4)], axis=1)
    ys = np.stack([values(f"corner_y{i}") for i in range(4)], axis=1)
    corners = np.stack([xs, ys], axis=2)  # sample, corner, (x, y)
    sizes = [np.asarray(a).shape[1::-1] for a in session.arrays("decode")]
    job = tmp / "job.json"
    count = 12  # pixels compared on the first dozen; corners over all 240
    job.write_text(
        json.dumps(
            {
                "images": [str(p) for p in images[:count]],
                "corners": corners[:count].astype(int).tolist(),
                "sizes": [[int(w), int(h)] for w, h in sizes],
            }
        )
    )
    out = tmp / "theirs.npz"
    subprocess.run(
        [reference_python, "-c", THEIRS, str(job), str(out)],
        check=True,
        timeout=600,
        capture_output=True,
    )
    theirs = np.load(out)
    ours = [np.asarray(a) for a in session.arrays("perspective")][:count]
    return {
        "pixels": difference(ours, [theirs[f"warped_{i}"] for i in range(count)]),
        "ours": corners,
        "theirs": theirs["drawn"],
        "sizes": np.asarray(sizes, dtype=np.float64),
    }


@pytest.mark.slow
def test_the_same_corners_give_torchvisions_pixels(compared: dict[str, Any]) -> None:
    bound = GRADES["RandomPerspective"]
    found = compared["pixels"]
    assert found.shapes_agree
    assert bound.mean_abs is not None and bound.max_abs is not None
    assert found.mean_abs <= bound.mean_abs and found.max_abs <= bound.max_abs, str(found)


@pytest.mark.slow
def test_the_corners_are_drawn_as_torchvision_draws_them(compared: dict[str, Any]) -> None:
    ours, theirs, sizes = compared["ours"], compared["theirs"], compared["sizes"]
    for corner in range(4):
        for axis in range(2):
            side = sizes[:, axis]
            statistic, p = ks_statistic(
                ours[:, corner, axis] / side, theirs[:, corner, axis] / side
            )
            assert p > 0.01, f"corner {corner} axis {axis}: KS {statistic:.3f}, p {p:.3g}"
