i, j = sch.get_loops("cond")
sch.decompose_padding("cond", i)
