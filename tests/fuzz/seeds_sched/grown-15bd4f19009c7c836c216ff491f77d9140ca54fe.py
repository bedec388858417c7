i, j, k = sch.get_loops(sch.get_block("B"))
sch.loop_par
sch.loop_partition(i, factorss=[2, rs=[3, Nonch.be]race)l
ockize([])
