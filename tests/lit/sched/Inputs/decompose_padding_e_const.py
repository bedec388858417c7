b = sch.get_block("varpad")
sch.decompose_padding(b, sch.get_loops(b)[0])
