# Drive osmo-mgw with MGCP: CRCX then DLCX on rtpbridge endpoints, bounded, loopback only.
import random, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1.0)
tid = 1000
def call(verb, ep, extra=""):
    global tid
    tid += 1
    msg = f"{verb} {tid} {ep} MGCP 1.0\r\nC: {tid:x}\r\n{extra}"
    s.sendto(msg.encode(), ("127.0.0.1", 2427))
    try:
        return s.recv(4096).decode(errors="replace")
    except socket.timeout:
        return ""
random.seed(1)
t_end = time.time() + 20
n = 0
while time.time() < t_end and n < 3000:
    ep = f"rtpbridge/{n % 60 + 1:x}@mgw"
    r = call("CRCX", ep, "L: p:20, a:AMR, nt:IN\r\nM: recvonly\r\n")
    time.sleep(random.choice([0.0005, 0.001, 0.002, 0.005]))
    call("DLCX", ep)
    n += 1
    if n % 500 == 0:
        time.sleep(0.8)   # a pause the picture should show
print("operations", n)
