b = sch.get_block("B")
sch.decompose_padding(b, sch.get_loops(b)[0])
