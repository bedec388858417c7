i = sch.get_loops(sch.get_block("C"))[0]
j = sch.get_loops(sch.get_block("D"))[0]
sch.merge(i, j)
print(sch.trace)
