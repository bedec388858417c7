_, _, i1, _ = sch.get_loops(sch.get_block("B"))
o = sch.blockize(i1)
print(sch.trace)
