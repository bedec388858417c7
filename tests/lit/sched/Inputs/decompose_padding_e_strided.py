b = sch.get_block("strided")
sch.decompose_padding(b, sch.get_loops(b)[0])
