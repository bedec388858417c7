_, _, i1, _ = sch.get_loops(sch.get_block("B"))
sch.blockize(i1, preserve_unit_iters=False)
