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


def list_blobs(endpoint, container, prefix=""):
    """The names of the committed blobs under prefix (SharedKey-signed List Blobs)."""
    import re
    import urllib.parse
    names, marker = [], ""
    while True:
        date = formatdate(usegmt=True)
        path = endpoint.split("://", 1)[1].split("/", 1)[1]
        query = {"comp": "list", "restype": "container", "prefix": prefix}
        if marker:
            query["marker"] = marker
        canon = "".join(f"\n{k}:{query[k]}" for k in sorted(query))
        to_sign = ("GET\n\n\n\n\n\n\n\n\n\n\n\n"
                   f"x-ms-date:{date}\nx-ms-version:2021-12-02\n"
                   f"/{ACCOUNT}/{path}/{container}{canon}")
        sig = base64.b64encode(hmac.new(base64.b64decode(KEY), to_sign.encode(),
                                        hashlib.sha256).digest()).decode()
        url = f"{endpoint}/{container}?" + urllib.parse.urlencode(query)
        req = urllib.request.Request(url, headers={
            "x-ms-date": date, "x-ms-version": "2021-12-02",
            "Authorization": f"SharedKey {ACCOUNT}:{sig}"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            xml = resp.read().decode()
        names += re.findall(r"<Blob><Name>([^<]*)</Name>", xml)
        m = re.search(r"<NextMarker>([^<]+)</NextMarker>", xml)
        if not m:
            return sorted(names)
        marker = m.group(1)


def read_blob(endpoint, container, name):
    date = formatdate(usegmt=True)
    path = endpoint.split("://", 1)[1].split("/", 1)[1]
    to_sign = ("GET\n\n\n\n\n\n\n\n\n\n\n\n"
               f"x-ms-date:{date}\nx-ms-version:2021-12-02\n"
               f"/{ACCOUNT}/{path}/{container}/{name}")
    sig = base64.b64encode(hmac.new(base64.b64decode(KEY), to_sign.encode(),
                                    hashlib.sha256).digest()).decode()
    req = urllib.request.Request(f"{endpoint}/{container}/{name}", headers={
        "x-ms-date": date, "x-ms-version": "2021-12-02",
        "Authorization": f"SharedKey {ACCOUNT}:{sig}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.read()
