"""Articles of another workspace answer exactly like articles that do not exist, and
never turn up in a search."""

from __future__ import annotations

from tests.conftest import WorkspaceFixture
from tests.graphql.articles.helpers import list_articles, new_article

MISSING = "art_01JD0000000000000000000000"
BY_ID = {
    "article": "query($id: ID!) { article(id: $id) { id title } }",
    "node": "query($id: ID!) { node(id: $id) { id } }",
    "updateArticle": """mutation($id: ID!) { updateArticle(input: {id: $id, title: "Mine now"}) {
        article { id } error { code message fields { field code } } } }""",
    "publishArticle": "mutation($id: ID!) { publishArticle(id: $id) { article { id } error { code message } } }",
    "unpublishArticle": "mutation($id: ID!) { unpublishArticle(id: $id) { article { id } error { code message } } }",
}


def test_another_workspaces_article_is_not_there(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    theirs = other_workspace.client()
    foreign = new_article(theirs, title="Secret printer manual", body="printer", status="published")
    mine = workspace.client()
    own = new_article(mine, title="Our printer manual", body="printer", status="published")

    for name, query in BY_ID.items():
        assert mine(query, {"id": foreign["id"]}).body == mine(query, {"id": MISSING}).body, name
    found = list_articles(mine, filter={"query": "printer manual"})
    assert [edge["node"]["id"] for edge in found["edges"]] == [own["id"]]
    assert found["totalCount"] == 1
    assert list_articles(mine)["totalCount"] == 1
    unchanged = theirs.ok(
        "query($id: ID!) { article(id: $id) { title status } }", {"id": foreign["id"]}
    )
    assert unchanged["article"] == {"title": "Secret printer manual", "status": "published"}
