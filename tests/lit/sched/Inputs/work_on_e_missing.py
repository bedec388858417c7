sch.work_on("mian")
