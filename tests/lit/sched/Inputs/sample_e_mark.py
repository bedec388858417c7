b = sch.get_block("B")
l = sch.sample_compute_location(b, decision=-1)
sch.split(l, factors=[None, 4])
