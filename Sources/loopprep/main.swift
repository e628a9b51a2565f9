import LoopMedia
print(ffVersion())
