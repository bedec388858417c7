b = sch.get_block("B")
sch.remove_rv(b)
sch.compute_inline(b)
