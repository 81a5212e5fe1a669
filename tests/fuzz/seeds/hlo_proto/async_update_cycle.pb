
m)
main
uasync-update˜ (00