"""A loopback FTP server for stampede's FTP Request tests: the witness of what was transferred.

Usage: server.py ROOT COUNTS_FILE USER PASSWORD

Serves ROOT to USER (read and write) and to `anonymous` (read only) on 127.0.0.1 at a free
port, which it prints as `PORT <n>` once it listens. After each event it rewrites COUNTS_FILE
(JSON, replaced whole) with its own counts: logins, failed logins, RETR and STOR commands
received, files sent and received in full, and transfers cut short. It runs until killed.
"""

import json
import logging
import os
import sys

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler
from pyftpdlib.servers import FTPServer

root, counts_file, user, password = sys.argv[1:5]
counts = {
    "logins": 0,
    "failed_logins": 0,
    "retr": 0,
    "stor": 0,
    "sent": 0,
    "received": 0,
    "incomplete": 0,
    "bytes_received": 0,
}


def save():
    tmp = counts_file + ".tmp"
    with open(tmp, "w") as f:
        json.dump(counts, f)
    os.replace(tmp, counts_file)


def bump(key, by=1):
    counts[key] += by
    save()


class Counting(FTPHandler):
    def on_login(self, username):
        bump("logins")

    def on_login_failed(self, username, password):
        bump("failed_logins")

    def ftp_RETR(self, file):
        bump("retr")
        return super().ftp_RETR(file)

    def ftp_STOR(self, file, mode="w"):
        bump("stor")
        return super().ftp_STOR(file, mode)

    def on_file_sent(self, file):
        bump("sent")

    def on_file_received(self, file):
        counts["bytes_received"] += os.path.getsize(file)
        bump("received")

    def on_incomplete_file_sent(self, file):
        bump("incomplete")

    def on_incomplete_file_received(self, file):
        bump("incomplete")


logging.basicConfig(filename=os.path.join(os.path.dirname(counts_file), "ftpd.log"), level=logging.INFO)
authorizer = DummyAuthorizer()
authorizer.add_user(user, password, root, perm="elradfmw")
authorizer.add_anonymous(root)
Counting.authorizer = authorizer
Counting.banner = "stampede test ftpd ready."
# A refused login is answered at once (pyftpdlib waits 3 s by default), so tests stay short.
Counting.auth_failed_timeout = 0.1
save()
server = FTPServer(("127.0.0.1", 0), Counting)
print("PORT", server.socket.getsockname()[1], flush=True)
server.serve_forever()
