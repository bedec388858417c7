# Tiles from the schedule (docs/npu.md): 16 rows x 16 columns x 32 reduction elements
# (the cache stages' own loops), two virtual threads over the column blocks.
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
jo, ji = sch.split(j, factors=[None, 16])
ko, ki = sch.split(k, factors=[None, 32])
sch.reorder(jo, ko, i, ji, ki)
sch.bind(jo, "vthread")
Al = sch.cache_read(b, 0, "npu.inp")
Bl = sch.cache_read(b, 1, "npu.wgt")
sch.compute_at(Al, ko)
sch.compute_at(Bl, ko)
Cl = sch.cache_write(b, 0, "npu.acc")
sch.reverse_compute_at(Cl, jo)
