t = sch.get_block("tensor")
sch.decompose_padding(t, sch.get_loops(t)[0])
