print("devsim")
