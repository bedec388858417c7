"""viz.py - tvs.viz.loop_nest(sch, block): the loops around a block as a small
SVG (one nested box per loop: name, extent, kind), for notebooks, where a class
would rather look than read.  Jupyter shows the returned object as a picture;
str() gives the same nest as text."""
import html
import re

_KIND_COLOR = {"serial": "#e8eef7", "parallel": "#f7e3d4", "vectorized": "#dcefd9", "unroll": "#efe3f3",
               "thread_binding": "#f5f0c8"}


def _loop_info(sch, loop):
    """(name, extent, kind) of a loop from its printed statement."""
    text = sch.get(loop)
    head = re.search(r"# loop '([^']+)'", text)
    m = re.search(r"for ([\w, ]+) in (range|T\.\w+)\(([^)]*)\)", text)
    if not head or not m:
        return (head.group(1) if head else "?"), "?", "serial"
    names = [n.strip() for n in m.group(1).split(",")]
    args = [a.strip() for a in m.group(3).split(",")]
    fn = m.group(2)
    idx = names.index(head.group(1)) if head.group(1) in names else 0
    extent = args[idx] if fn == "T.grid" and idx < len(args) else args[-1] if fn == "range" else args[0]
    kind = {"range": "serial", "T.grid": "serial", "T.serial": "serial", "T.parallel": "parallel",
            "T.vectorized": "vectorized", "T.unroll": "unroll", "T.thread_binding": "thread_binding"}.get(fn, fn)
    if fn == "T.grid" and idx > 0:
        kind = "serial"
    return head.group(1), extent, kind


class LoopNest:
    def __init__(self, block_name, loops):
        self.block_name, self.loops = block_name, loops

    def __str__(self):
        lines = [f"{'  ' * d}for {n} in {k}({e})" for d, (n, e, k) in enumerate(self.loops)]
        lines.append(f"{'  ' * len(self.loops)}block {self.block_name}")
        return "\n".join(lines)

    def _repr_svg_(self):
        step, h_line = 14, 20
        n = len(self.loops)
        width = 360 + 2 * step * n
        height = h_line * (n + 1) + 2 * step * n + 16
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'font-family="monospace" font-size="12">']
        for d, (name, extent, kind) in enumerate(self.loops):
            x, y = d * step + 1, d * (step + h_line) + 1
            w, hh = width - 2 * x, height - 2 * y
            out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{hh}" rx="6" fill="{_KIND_COLOR.get(kind, "#eee")}" '
                       f'stroke="#445"/>')
            out.append(f'<text x="{x + 8}" y="{y + 15}">{html.escape(name)}: {html.escape(str(extent))}'
                       f'{"" if kind == "serial" else " (" + kind + ")"}</text>')
        y = n * (step + h_line) + 4
        out.append(f'<text x="{n * step + 10}" y="{y + 14}" font-weight="bold">block "{html.escape(self.block_name)}"'
                   f'</text></svg>')
        return "".join(out)


def loop_nest(sch, block):
    """The loop nest around block (a BlockRV or a block name) in sch."""
    if isinstance(block, str):
        name, block = block, sch.get_block(block)
    else:
        m = re.search(r"# block '([^']+)'", sch.get(block))
        name = m.group(1) if m else "?"
    return LoopNest(name, [_loop_info(sch, lp) for lp in sch.get_loops(block)])
