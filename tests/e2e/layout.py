"""Nothing clipped or overlapping on a phone (issue 15: long Tamil words, Filipino sentences).

:func:`layout_problems` looks at the page as drawn and reports, as short sentences:

- the document scrolls sideways (``documentElement.scrollWidth > innerWidth``);
- an element with visible text whose content overflows a box that hides it (``overflow``
  ``hidden`` or ``clip`` on that axis, or ``text-overflow: ellipsis``): text cut off;
- two visible text-bearing elements (buttons, links, labels, headings, table cells, summaries,
  legends, paragraphs, list items, ``dt``/``dd``) whose boxes overlap by more than a pixel each
  way, one not inside the other (each line of a link that wraps is a box of its own).
  Elements that float over the page by design (``position: fixed`` or ``sticky``, like the
  Record button kept at the bottom of the screen) and what they hold are left out: they cover
  whatever scrolls under them.

Hidden elements (no box, ``visibility: hidden``, 1 px screen-reader text) are ignored, and so
are text fields (``input``, ``textarea``): what is typed in one scrolls inside it by design
(the table and seat links offered for copying are longer than the screen).
"""

from __future__ import annotations

from typing import Any

_CHECK = r"""
() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth) {
    problems.push(`the page scrolls sideways: ${root.scrollWidth} px wide in ${window.innerWidth}`);
  }
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 1 && box.height > 1 && style.visibility !== "hidden";
  };
  const text = (el) => (el.innerText || el.value || "").trim();
  const name = (el) => {
    const classes = typeof el.className === "string" && el.className.trim()
      ? "." + el.className.trim().split(/\s+/).join(".") : "";
    const id = el.id ? "#" + el.id : "";
    return `${el.tagName.toLowerCase()}${id}${classes} «${text(el).slice(0, 40)}»`;
  };
  for (const el of document.body.querySelectorAll("*")) {
    if (!text(el) || !shown(el) || el.matches("input, textarea")) continue;
    const style = getComputedStyle(el);
    const hides = (overflow) => overflow === "hidden" || overflow === "clip";
    const across = hides(style.overflowX) || style.textOverflow === "ellipsis";
    if (across && el.scrollWidth > el.clientWidth + 1) {
      const size = `${el.scrollWidth} px in ${el.clientWidth}`;
      problems.push(`text cut off sideways: ${name(el)} (${size})`);
    }
    if (hides(style.overflowY) && el.scrollHeight > el.clientHeight + 1) {
      const size = `${el.scrollHeight} px in ${el.clientHeight}`;
      problems.push(`text cut off below: ${name(el)} (${size})`);
    }
  }
  const floats = (el) => {
    for (let at = el; at && at !== document.body; at = at.parentElement) {
      const position = getComputedStyle(at).position;
      if (position === "fixed" || position === "sticky") return true;
    }
    return false;
  };
  const selector = "button, a, label, h1, h2, h3, h4, th, td, summary, legend, p, li, dt, dd, "
    + "input[type=submit], select";
  const boxes = [...document.body.querySelectorAll(selector)]
    .filter((el) => text(el) && shown(el) && !floats(el))
    .map((el) => [el, [...el.getClientRects()].filter((r) => r.width > 1 && r.height > 1)]);
  const meet = (ra, rb) => Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left) > 1
    && Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 1;
  for (let i = 0; i < boxes.length; i++) {
    const [a, rects_a] = boxes[i];
    for (let j = i + 1; j < boxes.length; j++) {
      const [b, rects_b] = boxes[j];
      if (a.contains(b) || b.contains(a)) continue;
      if (rects_a.some((ra) => rects_b.some((rb) => meet(ra, rb)))) {
        problems.push(`overlap: ${name(a)} and ${name(b)}`);
      }
    }
  }
  return problems;
}
"""


def layout_problems(page: Any) -> list[str]:
    """What is clipped, overlapping or too wide on ``page`` (a Playwright page, scrolled to the
    top), one sentence each; ``[]`` when nothing is."""
    page.evaluate("window.scrollTo(0, 0)")
    return list(page.evaluate(_CHECK))
