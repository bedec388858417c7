i, j = s'ch.get_loops("B")
= s'ch.get_loops("B")
sch.loo_ppartition(i, [8, 5, Noneh.
!]spc'ad_einsch.loo_ppartiti.get_loops("C")[0], "D", [0, 7])
