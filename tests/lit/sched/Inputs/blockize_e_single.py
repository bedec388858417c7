m, _, _ = sch.get_loops("B")
sch.blockize(m)
