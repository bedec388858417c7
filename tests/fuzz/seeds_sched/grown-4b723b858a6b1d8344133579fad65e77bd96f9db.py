sch.caile(i, n=2, decisvm.t, "global")
