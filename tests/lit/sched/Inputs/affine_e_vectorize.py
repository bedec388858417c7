(i,) = sch.get_loops(sch.get_block("opaque", func_name="opaque"))
sch.vectorize(i)
