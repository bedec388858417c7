acc = sch.get_block("acc")
r, ko = sch.get_loops(acc)
sch.decompose_reduction(acc, ko)
