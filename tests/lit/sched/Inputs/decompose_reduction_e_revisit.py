i, r = sch.get_loops("C")
io, ii = sch.split(i, [None, 4])
sch.compute_at("B", io)
sch.decompose_reduction("B", io)
