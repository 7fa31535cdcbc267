"""Creates an Azure Blob container with a SharedKey-signed request (Azurite's
well-known account), written from the Blob REST specification so the test
needs no Azure SDK."""
import base64
import hashlib
import hmac
import urllib.request
from email.utils import formatdate

ACCOUNT = "devstoreaccount1"
KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
       "K1SZFPTOtr/KBHBeksoGMGw==")


def create_container(endpoint, container):
    """endpoint: http://127.0.0.1:PORT/devstoreaccount1. Returns the HTTP status."""
    date = formatdate(usegmt=True)
    path = endpoint.split("://", 1)[1].split("/", 1)[1]
    to_sign = ("PUT\n\n\n\n\n\n\n\n\n\n\n\n"
               f"x-ms-date:{date}\nx-ms-version:2021-12-02\n"
               f"/{ACCOUNT}/{path}/{container}\nrestype:container")
    sig = base64.b64encode(hmac.new(base64.b64decode(KEY), to_sign.encode(),
                                    hashlib.sha256).digest()).decode()
    req = urllib.request.Request(f"{endpoint}/{container}?restype=container", method="PUT",
                                 headers={"x-ms-date": date, "x-ms-version": "2021-12-02",
                                          "Authorization": f"SharedKey {ACCOUNT}:{sig}",
                                          "Content-Length": "0"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
