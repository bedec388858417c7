b = sch.get_block("B")
sch.transform_block_layout(b, lambda n, c, h, w: (c * 48 + h * 8 + w, n))
