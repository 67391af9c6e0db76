"""Images: a one-line description for any model, and the picture itself for a vision model.

Pillow reads only an image's header to describe it, so a huge picture costs nothing
to describe; :func:`image_for_model` decodes it (bounded: Pillow refuses
decompression bombs) and shrinks it to what a vision model takes.
"""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

from wikitui.core.vault.formats.conversion import Conversion, failed, finish, human_size

#: Longest side of a picture sent to a vision model (larger ones are scaled down).
MODEL_MAX_SIDE = 1568
#: Formats a vision model accepts as they are.
_MODEL_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def describe_image(path: Path) -> Conversion:
    """One line: format, size in pixels, colour mode, bytes (e.g. ``PNG image, 640×480 pixels, RGB, 12 KB``)."""
    from PIL import Image, UnidentifiedImageError

    try:
        size = os.path.getsize(path)
        with Image.open(path) as img:
            fmt = img.format or path.suffix.lstrip(".").upper()
            width, height = img.size
            mode = img.mode
            frames = getattr(img, "n_frames", 1)
    except (UnidentifiedImageError, Image.DecompressionBombError, SyntaxError, ValueError):
        return failed("image", f"{path.name} is not a readable image")
    except OSError as exc:
        return failed("image", f"{path.name} could not be read: {exc.strerror or exc}", cacheable=False)
    extra = f", {frames} frames" if frames > 1 else ""
    line = f"{fmt} image, {width}×{height} pixels, {mode}{extra}, {human_size(size)}"
    return finish("image", line)


def image_for_model(path: Path, max_side: int = MODEL_MAX_SIDE) -> tuple[str, bytes] | None:
    """The picture as a vision model takes it: (MIME type, bytes), or None when it is not a readable image.

    Pictures in a format models accept and within ``max_side`` go as they are;
    others are scaled down and sent as PNG.
    """
    from PIL import Image

    try:
        img: Image.Image  # (convert below makes a plain Image of the opened file)
        with Image.open(path) as img:
            mime = _MODEL_FORMATS.get(img.format or "")
            if mime and max(img.size) <= max_side:
                return mime, Path(path).read_bytes()
            img.thumbnail((max_side, max_side))
            if img.mode not in ("RGB", "RGBA", "L", "LA"):
                img = img.convert("RGBA")
            out = io.BytesIO()
            img.save(out, format="PNG")
            return "image/png", out.getvalue()
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        return None


def data_url(mime: str, data: bytes) -> str:
    """A ``data:`` URL (what litellm's ``image_url`` content part takes)."""
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
