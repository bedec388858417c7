b = sch.get_block("block")
sch.decompose_padding(b, sch.get_loops(b)[0])
print(sch.trace)
