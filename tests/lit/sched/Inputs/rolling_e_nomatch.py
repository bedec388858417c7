i, j = sch.get_loops("C")
io, ii = sch.split(i, [4, 4])
sch.compute_at(sch.get_block("B"), io)
sch.rolling_buffer("B", 0)
