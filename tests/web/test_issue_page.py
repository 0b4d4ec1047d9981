"""The inbox's issue page over HTTP (docs/inbox.md): the thread, the composer
(reply or note, a status change in the same action, held when the page was stale), the
controls, and every bad input answered without a 500 and without a half-written change."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.conftest import TEST_SECRET_KEY, WorkspaceFixture, make_workspace
from tests.graphql.events.helpers import events_after, last_sequence, types_of
from tests.graphql.issues.helpers import add_note, reply
from tests.graphql.labels.helpers import add_labels, new_label
from tests.graphql.members.helpers import new_member, remove_member
from tests.servers import RunningServer
from tests.web.issue_page_steps import (
    Agent,
    csrf_of,
    make_agent,
    make_issue,
    seen_of,
    thread_of,
)
from tests.web.settings_client import SettingsClient


@pytest.fixture
def agent(workspace: WorkspaceFixture) -> Agent:
    return make_agent(workspace)


@pytest.fixture(scope="module")
def small_files_server(server: RunningServer) -> Iterator[RunningServer]:
    """A second server on the same database whose attachments take at most 1 KiB."""
    running = RunningServer(
        server.backend,
        server.database_url,
        attachment_max_bytes=1024,
        failed_auth_per_minute=1_000_000,
        secret_key=TEST_SECRET_KEY,
    ).start()
    yield running
    running.stop()


@pytest.fixture
def small_files_workspace(small_files_server: RunningServer) -> WorkspaceFixture:
    return make_workspace(small_files_server)


@pytest.fixture
def small_files_agent(small_files_workspace: WorkspaceFixture) -> Agent:
    return make_agent(small_files_workspace)


def _position(page: str, text: str) -> int:
    found = page.find(text)
    assert found >= 0, text
    return found


def test_the_thread_shows_oldest_first_with_notes_marked_authors_and_escaped_html(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    api.ok(
        'mutation { createAccount(input: {name: "Reynholm Industries", domain: "reynholm.example"}) { error { code } } }'
    )
    issue = make_issue(
        api,
        body="<script>alert('first')</script>",
        requesterEmail="moss@reynholm.example",
        requesterName="Maurice Moss",
    )
    reply(api, issue["id"], "A public reply from the API")
    add_note(api, issue["id"], "Only the team sees this")

    page = agent.page(issue["ticketNumber"])

    assert page.status_code == 200
    text = page.text
    assert "&lt;script&gt;alert(&#39;first&#39;)&lt;/script&gt;" in text
    assert "<script>alert" not in text
    first = _position(text, "&lt;script&gt;alert")
    second = _position(text, "A public reply from the API")
    third = _position(text, "Only the team sees this")
    assert first < second < third
    assert text.count("Internal note</span>") == 1
    assert text.count('class="msg msg-note') == 1 and text.count('class="msg msg-public') == 2
    assert "Maurice Moss" in text and "moss@reynholm.example" in text
    assert "Reynholm Industries" in text
    for name in ("Message", "Status", "Priority", "Assignee", "Labels"):
        assert f">{name}</label>" in text
    assert ">Send reply</button>" in text and ">Add note</button>" in text
    assert "Assign to me" in text


def test_a_reply_with_a_status_change_is_public_and_authored_by_the_member(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    before = last_sequence(api)

    sent = agent.post(
        issue["ticketNumber"], "messages", {"body": "On it.", "status": "pending", "send": "reply"}
    )

    assert sent.status_code == 303
    assert sent.headers["location"].startswith(f"/inbox/issues/{issue['ticketNumber']}#msg_")
    found = thread_of(api, issue["id"])
    last = found["thread"][-1]
    assert (last["body"], last["visibility"], found["status"]) == ("On it.", "public", "pending")
    assert last["author"] == {"__typename": "Member", "id": agent.id, "name": agent.name}
    assert last["senderName"] == agent.name
    events = events_after(api, before)
    assert types_of(events) == ["message.created", "issue.updated"]
    assert {e["actor"]["type"] for e in events} == {"member"}
    assert {e["actor"]["id"] for e in events} == {agent.id}
    assert events[0]["actor"]["name"] == agent.name
    assert "Reply sent." in agent.page(issue["ticketNumber"]).text


def test_a_note_with_a_status_change_is_internal_in_one_action(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    before = last_sequence(api)

    sent = agent.post(
        issue["ticketNumber"],
        "messages",
        {"body": "Waiting on the vendor.", "status": "on_hold", "send": "note"},
    )

    assert sent.status_code == 303
    found = thread_of(api, issue["id"])
    last = found["thread"][-1]
    assert (last["visibility"], found["status"]) == ("internal", "on_hold")
    assert last["author"]["id"] == agent.id
    events = events_after(api, before)
    assert types_of(events) == ["message.created", "issue.updated"]
    assert events[0]["data"]["message"]["visibility"] == "internal"
    assert {e["actor"]["type"] for e in events} == {"member"}


def test_a_reply_from_a_stale_page_is_held_with_what_arrived_then_sent_anyway(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    stale = agent.page(number).text
    reply(api, issue["id"], "Someone else answered meanwhile")

    held = agent.post(number, "messages", {"body": "My answer", "send": "reply"}, page=stale)

    assert held.status_code == 409
    assert 'name="send" value="reply" class="button primary small">Send anyway<' in held.text
    assert ">Edit</a>" in held.text and "Your reply was not sent" in held.text
    assert ">My answer</textarea>" in held.text  # the text is kept
    assert "Someone else answered meanwhile" in held.text
    assert held.text.count('class="new-label">New</span>') == 1
    assert thread_of(api, issue["id"])["messageCount"] == 2  # nothing was sent
    assert seen_of(held.text) != seen_of(stale)

    anyway = agent.post(number, "messages", {"body": "My answer", "send": "reply"}, page=held.text)

    assert anyway.status_code == 303
    bodies = [m["body"] for m in thread_of(api, issue["id"])["thread"]]
    assert bodies[-2:] == ["Someone else answered meanwhile", "My answer"]


def test_a_note_is_held_too_and_a_note_counts_as_news(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    stale = agent.page(issue["ticketNumber"]).text
    add_note(api, issue["id"], "Careful: legal is involved")

    held = agent.post(
        issue["ticketNumber"], "messages", {"body": "fyi", "send": "note"}, page=stale
    )

    assert held.status_code == 409 and "Careful: legal is involved" in held.text
    assert 'value="note" class="button primary small">Send anyway<' in held.text
    assert thread_of(api, issue["id"])["messageCount"] == 2


def test_a_bad_message_comes_back_with_its_text_and_writes_nothing(
    workspace: WorkspaceFixture, agent: Agent, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    before = last_sequence(api)
    foreign = make_issue(other_workspace.client())

    empty = agent.post(number, "messages", {"body": "   ", "send": "reply", "status": "solved"})
    too_long = agent.post(number, "messages", {"body": "x" * 65_537, "send": "note"})
    bad_status = agent.post(number, "messages", {"body": "hi", "send": "reply", "status": "gone"})
    bad_file = agent.post(
        number,
        "messages",
        {"body": "hi", "send": "reply", "attachment_ids": "att_01JD0000000000000000000000"},
    )
    no_button = agent.post(number, "messages", {"body": "hi"})
    shown = agent.page(number).text
    unknown = agent.post(9999, "messages", {"body": "hi", "send": "reply"}, page=shown)
    foreign_number = agent.post(
        foreign["ticketNumber"] + 1000, "messages", {"body": "hi", "send": "reply"}, page=shown
    )

    assert empty.status_code == 400 and "Write a message first" in empty.text
    assert too_long.status_code == 400 and "at most 65,536 characters" in too_long.text
    assert ("x" * 65_537) in too_long.text  # kept to be shortened
    assert bad_status.status_code == 400 and "Choose a status" in bad_status.text
    assert bad_file.status_code == 404 and "not one of this workspace" in bad_file.text
    assert no_button.status_code == 400
    assert unknown.status_code == 404 and foreign_number.status_code == 404
    assert last_sequence(api) == before
    found = thread_of(api, issue["id"])
    assert (found["messageCount"], found["status"]) == (1, "new")


def test_status_priority_assignee_and_labels_change_as_the_member(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    urgent = new_label(api, "Urgent")
    billing = new_label(api, "Billing")
    add_labels(api, issue["id"], billing["id"])
    colleague = new_member(api, "jen@example.com", name="Jen Barber", role="agent")
    before = last_sequence(api)

    answers = [
        agent.post(number, "status", {"status": "open"}),
        agent.post(number, "priority", {"priority": "urgent"}),
        agent.post(number, "assignee", {"assignee_id": "me"}),
        agent.post(number, "labels", {"label_ids": [urgent["id"]]}),
    ]

    assert [a.status_code for a in answers] == [303] * 4
    found = thread_of(api, issue["id"])
    assert (found["status"], found["priority"]) == ("open", "urgent")
    assert found["assignee"] == {"__typename": "Member", "id": agent.id}
    assert [label["name"] for label in found["labels"]] == ["Urgent"]
    events = events_after(api, before)
    assert types_of(events) == [
        "issue.updated",
        "issue.updated",
        "issue.assigned",
        "issue.labels_changed",
    ]
    assert {(e["actor"]["type"], e["actor"]["id"]) for e in events} == {("member", agent.id)}

    to_colleague = agent.post(number, "assignee", {"assignee_id": colleague["id"]})
    unassigned = agent.post(number, "assignee", {"assignee_id": ""})
    assert (to_colleague.status_code, unassigned.status_code) == (303, 303)
    assert thread_of(api, issue["id"])["assignee"] is None


def test_a_control_asked_by_htmx_answers_with_the_controls_alone(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    issue = make_issue(workspace.client())
    number = issue["ticketNumber"]
    csrf = csrf_of(agent.page(number).text)

    answer = agent.http.http.post(
        f"/inbox/issues/{number}/priority",
        data={"csrf_token": csrf, "priority": "high"},
        headers={"HX-Request": "true"},
    )

    assert answer.status_code == 200
    assert answer.text.lstrip().startswith('<aside class="issue-side" id="issue-controls"')
    assert "<html" not in answer.text and 'hx-swap-oob="true"' in answer.text
    assert "High priority" in answer.text
    # The status did not move: what the agent chose under "Then mark as" stays.
    assert 'id="then-status"' not in answer.text

    refused = agent.http.http.post(
        f"/inbox/issues/{number}/status",
        data={"csrf_token": csrf, "status": "closed"},
        headers={"HX-Request": "true"},
    )

    # htmx swaps only 2xx answers: the refusal comes as the controls with the message.
    assert refused.status_code == 200 and 'role="alert"' in refused.text
    assert "cannot move from" in refused.text and "<html" not in refused.text


def test_a_status_set_by_htmx_brings_the_composers_choices_from_it(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    number = make_issue(workspace.client())["ticketNumber"]
    csrf = csrf_of(agent.page(number).text)

    solved = agent.http.http.post(
        f"/inbox/issues/{number}/status",
        data={"csrf_token": csrf, "status": "solved"},
        headers={"HX-Request": "true"},
    )

    found = re.search(r'<select id="then-status"[^>]*>(.*?)</select>', solved.text, re.S)
    assert found is not None and 'hx-swap-oob="true"' in found.group(0)
    choices = re.findall(r"<option[^>]*>([^<]*)</option>", found.group(1))
    assert choices[0] == "Solved (no change)"
    assert "Solved" not in choices[1:] and "Open" in choices[1:]


def test_foreign_and_unknown_ids_in_controls_change_nothing(
    workspace: WorkspaceFixture, agent: Agent, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    other = other_workspace.client()
    foreign_label = new_label(other, "Theirs")
    foreign_member = new_member(other, "them@example.com", name="Them", role="agent")
    before = last_sequence(api)

    label = agent.post(number, "labels", {"label_ids": foreign_label["id"]})
    member = agent.post(number, "assignee", {"assignee_id": foreign_member["id"]})
    status = agent.post(number, "status", {"status": "closed"})  # new -> closed is not a move
    priority = agent.post(number, "priority", {"priority": "whenever"})
    unknown_issue = agent.post(4242, "status", {"status": "open"})

    assert label.status_code == 404 and "not one of this workspace" in label.text
    assert member.status_code == 404 and "not a member of this workspace" in member.text
    assert status.status_code == 400 and "cannot move from" in status.text
    assert priority.status_code == 400 and "Choose a priority" in priority.text
    assert unknown_issue.status_code == 404
    assert last_sequence(api) == before


def test_an_issue_is_merged_into_another_by_ticket_number(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    duplicate = make_issue(api, subject="Printer still on fire")
    original = make_issue(api)
    before = last_sequence(api)

    itself = agent.post(
        duplicate["ticketNumber"], "merge", {"target_number": str(duplicate["ticketNumber"])}
    )
    nowhere = agent.post(duplicate["ticketNumber"], "merge", {"target_number": "99999"})
    garbage = agent.post(duplicate["ticketNumber"], "merge", {"target_number": "one"})
    assert (itself.status_code, nowhere.status_code, garbage.status_code) == (400, 404, 400)
    assert "no issue with that ticket number" in nowhere.text
    assert last_sequence(api) == before

    merged = agent.post(
        duplicate["ticketNumber"], "merge", {"target_number": f"#{original['ticketNumber']}"}
    )

    assert merged.status_code == 303
    assert merged.headers["location"] == f"/inbox/issues/{original['ticketNumber']}"
    assert thread_of(api, duplicate["id"])["mergedInto"] == {"id": original["id"]}
    events = events_after(api, before)
    assert types_of(events) == ["issue.merged"] and events[0]["actor"]["type"] == "member"
    source = agent.page(duplicate["ticketNumber"]).text
    assert "This issue was merged into" in source and "takes no more replies" in source


def test_forms_without_the_csrf_token_are_refused_and_write_nothing(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    before = last_sequence(api)
    page = agent.page(number).text

    missing = agent.http.post(
        f"/inbox/issues/{number}/messages",
        {"body": "hi", "send": "reply", "seen_up_to": seen_of(page)},
    )
    wrong = agent.http.post(
        f"/inbox/issues/{number}/status", {"status": "open", "csrf_token": "forged"}
    )
    upload = agent.http.http.post(
        f"/inbox/issues/{number}/attachments",
        data={"csrf_token": "forged"},
        files={"file": ("a.txt", b"hello", "text/plain")},
    )

    assert (missing.status_code, wrong.status_code, upload.status_code) == (403, 403, 403)
    assert last_sequence(api) == before


def test_a_removed_member_is_sent_to_the_login_and_writes_nothing(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    page = agent.page(number).text
    remove_member(api, agent.id)
    before = last_sequence(api)

    sent = agent.post(number, "messages", {"body": "still here?", "send": "reply"}, page=page)
    shown = agent.page(number)

    assert shown.status_code == 303 and shown.headers["location"] == "/login"
    assert sent.status_code == 303 and sent.headers["location"] == "/login"
    assert last_sequence(api) == before
    anonymous = SettingsClient(workspace.server.base_url).get(f"/inbox/issues/{number}")
    assert anonymous.status_code == 303 and anonymous.headers["location"] == "/login"


def test_unknown_and_foreign_pages_are_404(
    workspace: WorkspaceFixture, agent: Agent, other_workspace: WorkspaceFixture
) -> None:
    theirs = make_issue(other_workspace.client())
    for _ in range(2):
        make_issue(other_workspace.client())
    mine = make_issue(workspace.client())

    missing = [
        agent.page(theirs["ticketNumber"] + 2),  # only theirs has #3
        agent.http.get("/inbox/issues/not-a-number"),
        agent.http.get("/inbox/attachments/att_01JD0000000000000000000000"),
    ]

    assert agent.page(mine["ticketNumber"]).status_code == 200
    for answer in missing:
        assert answer.status_code == 404
        # An agent cannot open Settings: the way back is the inbox.
        assert 'href="/inbox/">Back to the inbox</a>' in answer.text
        assert "Settings" not in answer.text


def test_a_ticket_number_past_the_databases_integers_is_404_not_500(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    shown = agent.page(make_issue(workspace.client())["ticketNumber"]).text
    actions = {
        "messages": {"send": "note", "body": "Nothing to see."},
        "status": {"status": "open"},
        "labels": {},
        "merge": {"target_number": "1"},
        "attachments": {},
    }

    for number in (2**31, 2**63, 10**30):
        assert agent.page(number).status_code == 404
        for action, fields in actions.items():
            assert agent.post(number, action, fields, page=shown).status_code == 404, action


# --- Attachments --------------------------------------------------------------------


def _upload(
    agent: Agent,
    number: int,
    content: bytes,
    name: str = "notes.txt",
    *,
    json: bool = True,
    fields: dict[str, str] | None = None,
):  # type: ignore[no-untyped-def]
    page = agent.page(number).text  # a 404 page carries the session's token too
    headers = {"Accept": "application/json"} if json else {}
    return agent.http.http.post(
        f"/inbox/issues/{number}/attachments",
        data={"csrf_token": csrf_of(page), **(fields or {})},
        files={"file": (name, content, "text/plain")},
        headers=headers,
    )


def test_a_file_uploaded_from_the_composer_goes_with_the_reply_and_downloads_safely(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    content = b"<html><script>alert(1)</script></html>"

    uploaded = _upload(agent, number, content, "r\u00e9sum\u00e9.html")

    assert uploaded.status_code == 201, uploaded.text
    attachment = uploaded.json()
    assert attachment["fileName"] == "r\u00e9sum\u00e9.html" and attachment["sizeBytes"] == len(
        content
    )
    sent = agent.post(
        number,
        "messages",
        {"body": "See attached", "send": "reply", "attachment_ids": attachment["id"]},
    )
    assert sent.status_code == 303
    last = thread_of(api, issue["id"])["thread"][-1]
    assert last["attachments"] == [
        {"id": attachment["id"], "fileName": "r\u00e9sum\u00e9.html", "sizeBytes": len(content)}
    ]
    page = agent.page(number).text
    assert f'href="/inbox/attachments/{attachment["id"]}"' in page

    download = agent.http.get(f"/inbox/attachments/{attachment['id']}")

    assert download.status_code == 200 and download.content == content
    assert download.headers["content-disposition"].startswith("attachment;")
    assert "filename*=UTF-8''r%C3%A9sum%C3%A9.html" in download.headers["content-disposition"]
    assert download.headers["x-content-type-options"] == "nosniff"
    assert download.headers["content-security-policy"] == "sandbox"
    stranger = SettingsClient(workspace.server.base_url).get(
        f"/inbox/attachments/{attachment['id']}"
    )
    assert stranger.status_code == 303


def test_an_upload_without_a_script_keeps_the_composers_text(
    workspace: WorkspaceFixture, agent: Agent
) -> None:
    issue = make_issue(workspace.client())
    number = issue["ticketNumber"]

    answer = _upload(
        agent,
        number,
        b"log line\n",
        "server.log",
        json=False,
        fields={"body": "Half-written reply", "status": "pending"},
    )

    assert answer.status_code == 200
    assert ">Half-written reply</textarea>" in answer.text
    assert re.search(r'name="attachment_ids" value="att_[0-9A-Z]{26}"', answer.text)
    assert "server.log" in answer.text
    assert '<option value="pending" selected>' in answer.text


def test_bad_uploads_are_refused_and_attach_nothing(
    workspace: WorkspaceFixture, agent: Agent, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    page = agent.page(number).text

    empty = _upload(agent, number, b"", "empty.txt")
    no_file = agent.http.http.post(
        f"/inbox/issues/{number}/attachments",
        data={"csrf_token": csrf_of(page)},
        headers={"Accept": "application/json"},
    )
    unknown_issue = _upload(agent, 8888, b"x")

    assert empty.status_code == 400 and "empty" in empty.json()["error"]["message"]
    assert no_file.status_code == 400
    assert unknown_issue.status_code == 404
    # Another member's upload is not offered back by the page.
    other_agent = make_agent(workspace, "Jen Barber")
    theirs = _upload(other_agent, number, b"mine").json()
    again = _upload(agent, number, b"x", json=False, fields={"attachment_ids": theirs["id"]})
    assert theirs["id"] not in again.text


def test_a_file_over_the_limit_is_refused(
    small_files_agent: Agent, small_files_workspace: WorkspaceFixture
) -> None:
    issue = make_issue(small_files_workspace.client())
    number = issue["ticketNumber"]

    too_large = _upload(small_files_agent, number, b"x" * 2048)
    far_too_large = _upload(small_files_agent, number, b"x" * (2 * 1024 * 1024))

    assert too_large.status_code == 400 and "too large" in too_large.json()["error"]["message"]
    assert far_too_large.status_code == 413


def _in_chunks(body: bytes, size: int = 64 * 1024) -> Iterator[bytes]:
    """The body as a generator: httpx sends it chunked, without a Content-Length."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


def test_a_chunked_upload_past_the_limit_is_refused_before_it_is_all_read(
    small_files_agent: Agent, small_files_workspace: WorkspaceFixture
) -> None:
    number = make_issue(small_files_workspace.client())["ticketNumber"]
    token = csrf_of(small_files_agent.page(number).text)
    boundary = "chunked-upload"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n'
            f"{token}\r\n--{boundary}\r\n"
            'Content-Disposition: form-data; name="file"; filename="big.txt"\r\n'
            "Content-Type: text/plain\r\n\r\n"
        ).encode()
        + b"x" * (4 * 1024 * 1024)
        + f"\r\n--{boundary}--\r\n".encode()
    )

    answer = small_files_agent.http.http.post(
        f"/inbox/issues/{number}/attachments",
        content=_in_chunks(body),
        headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Accept": "application/json",
        },
    )

    assert "content-length" not in answer.request.headers
    assert answer.status_code == 413
