i = sch.get_loops(sch.get_block("C"))[0]
sch.merge(i)
