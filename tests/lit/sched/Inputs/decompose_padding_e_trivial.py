b = sch.get_block("trivial")
sch.decompose_padding(b, sch.get_loops(b)[0])
