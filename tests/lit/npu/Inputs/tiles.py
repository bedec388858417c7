# DMA tiles of 8 rows x 16 columns x 16 reduction elements: split the loops,
# then move the npu.* cache stages under the outer ones.
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
io, ii = sch.split(i, factors=[None, 8])
jo, ji = sch.split(j, factors=[None, 16])
ko, ki = sch.split(k, factors=[None, 16])
sch.reorder(io, jo, ko, ii, ji, ki)
Al = sch.cache_read(b, 0, "npu.inp")
Bl = sch.cache_read(b, 1, "npu.wgt")
sch.compute_at(Al, ko)
sch.compute_at(Bl, ko)
