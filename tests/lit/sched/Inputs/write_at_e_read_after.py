i, r = sch.get_loops("C")
io, ii = sch.split(i, [2, 4])
sch.compute_at(sch.get_block("B"), io)
sch.write_at(io, "B", 0, "local")
