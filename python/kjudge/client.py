"""kjudge.Client: a client of `kjudge serve`, the HTTP JSON judging service
(docs/api.md), on urllib alone.

Every answer is one JSON object; every error answer is {"error": "..."}
with a 4xx or 5xx status, raised here as ServeError.  Jobs are submitted
with POST /v1/jobs and waited for by long polls of GET /v1/jobs/ID?wait=S.
"""
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

from .cli import source_path
from .errors import ServeError

FINAL = ("done", "failed", "cancelled")


class Client:
    """A connection to one kjudge serve.

    url: the server, "http://127.0.0.1:8421" by default (a trailing /v1 is
    accepted).  token: the bearer token ("kjt_..."; by default
    $KJUDGE_TOKEN, and none when that is unset), needed once the server's
    store holds tokens.  timeout: seconds for one HTTP request, beyond the
    long poll's own wait."""

    def __init__(self, url="http://127.0.0.1:8421", token=None, timeout=30.0):
        url = url.rstrip("/")
        if url.endswith("/v1"):
            url = url[:-3]
        self.url = url
        self.token = token if token is not None else os.environ.get("KJUDGE_TOKEN") or None
        self.timeout = timeout

    def __repr__(self):
        return "kjudge.Client(%r%s)" % (self.url, ", token=..." if self.token else "")

    def request(self, method, path, body=None, wait=0.0):
        """One request to /v1 + path; returns the answer's JSON object.
        Raises ServeError (status and the JSON error object) on a 4xx or 5xx
        answer, or when the server cannot be reached (status None)."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.url + "/v1" + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout + wait) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)
            except ValueError:
                err = {"error": raw.decode("utf-8", "replace").strip() or e.reason}
            msg = err.get("error") if isinstance(err, dict) else None
            raise ServeError("%s %s: HTTP %d: %s" % (method, path, e.code, msg or e.reason),
                             status=e.code, error=err) from None
        except urllib.error.URLError as e:
            raise ServeError("%s %s: cannot reach %s: %s" % (method, path, self.url, e.reason)) from None

    def health(self):
        """GET /v1/health: {"status": "ok" or "stopping", "backend", "queue", ...}."""
        return self.request("GET", "/health")

    def tasks(self):
        """The server's tasks: a list of {"id", "level", "category", "about"}."""
        return self.request("GET", "/tasks")["tasks"]

    def submit(self, task, source, backend=None, model=None, sample=None, round=None,
               idempotency_key=None):
        """POST /v1/jobs: queues one candidate; returns the job (its "id",
        "state" "queued"; the same job again, with "replayed" true, for an
        idempotency key used before with the same request).  source: code or
        a path, as kjudge.eval takes it.  The other fields are the API's."""
        path, code = source_path(source)
        if code is None:
            with open(path, "rb") as f:
                code = f.read()
        body = {"task": task, "source": code.decode("utf-8")}
        for key, value in (("backend", backend), ("model", model), ("sample", sample),
                           ("round", round), ("idempotency_key", idempotency_key)):
            if value is not None:
                body[key] = value
        return self.request("POST", "/jobs", body)

    def job(self, job_id, wait=None):
        """GET /v1/jobs/ID: the job, with its "verdict" once done.  wait:
        seconds of long poll (the server caps it, --max-wait)."""
        if wait is None:
            return self.request("GET", "/jobs/%d" % job_id)
        return self.request("GET", "/jobs/%d?wait=%g" % (job_id, wait), wait=wait)

    def wait(self, job_id, timeout=None, poll=60.0):
        """Long-polls until the job is done, failed or cancelled and returns
        it; after timeout seconds (None: no limit) raises TimeoutError."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = poll if deadline is None else min(poll, deadline - time.monotonic())
            if left <= 0:
                raise TimeoutError("job %d not finished after %g s" % (job_id, timeout))
            job = self.job(job_id, wait=left)
            if job["state"] in FINAL:
                return job

    def cancel(self, job_id):
        """Cancels a queued job; returns it.  A running or finished one is a
        ServeError with status 409."""
        return self.request("POST", "/jobs/%d/cancel" % job_id)

    def jobs(self, state=None, after=None, limit=None):
        """GET /v1/jobs: this token's jobs (without verdicts), oldest first."""
        query = {k: v for k, v in (("state", state), ("after", after), ("limit", limit))
                 if v is not None}
        return self.request("GET", "/jobs" + ("?" + urllib.parse.urlencode(query) if query else ""))["jobs"]

    def eval(self, task, source, timeout=None, **fields):
        """Submits the candidate, waits for it and returns its verdict (the
        dict kjudge.eval returns); fields are submit's.  A job that failed
        (the judge failed) or was cancelled raises ServeError with the job
        as its error."""
        job = self.wait(self.submit(task, source, **fields)["id"], timeout=timeout)
        if job["state"] != "done" or job.get("verdict") is None:
            raise ServeError("job %d %s: %s" % (job["id"], job["state"], job.get("error") or "no verdict"),
                             error=job)
        return job["verdict"]
