sch.sto orr_a,  , 0, -4, 1)
