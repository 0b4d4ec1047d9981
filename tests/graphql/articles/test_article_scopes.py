"""Scopes of every article operation (CONTRACT section 2)."""

from __future__ import annotations

from tests.conftest import WorkspaceFixture
from tests.graphql.articles.helpers import (
    CREATE_ARTICLE,
    PUBLISH_ARTICLE,
    UNPUBLISH_ARTICLE,
    UPDATE_ARTICLE,
    new_article,
)
from tests.graphql.scope_checks import check_every_scope


def test_each_article_operation_needs_its_scope(workspace: WorkspaceFixture) -> None:
    article_id = new_article(workspace.client())["id"]
    by_id = {"id": article_id}
    operations = {
        "article": ("query($id: ID!) { article(id: $id) { id } }", lambda n: by_id),
        "articles": ('{ articles(filter: {query: "getting"}) { totalCount } }', lambda n: None),
        "createArticle": (CREATE_ARTICLE, lambda n: {"input": {"title": f"Article {n}"}}),
        "updateArticle": (UPDATE_ARTICLE, lambda n: {"input": {**by_id, "body": f"{n}"}}),
        "publishArticle": (PUBLISH_ARTICLE, lambda n: by_id),
        "unpublishArticle": (UNPUBLISH_ARTICLE, lambda n: by_id),
    }
    allowed_by = {
        "article": {"articles:read"},
        "articles": {"articles:read"},
        "createArticle": {"articles:write"},
        "updateArticle": {"articles:write"},
        "publishArticle": {"articles:write"},
        "unpublishArticle": {"articles:write"},
    }

    check_every_scope(workspace, operations, allowed_by)
