c = sch.get_block("C")
b = sch.get_block("B")
l = sch.sample_compute_location(b, decision=-2)
sch.reverse_compute_at(c, l)
