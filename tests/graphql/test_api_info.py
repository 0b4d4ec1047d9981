from tests.conftest import WorkspaceFixture


def test_api_info_describes_the_key_its_workspace_and_machine_user(
    workspace: WorkspaceFixture,
) -> None:
    data = workspace.client().ok("{ apiInfo }")

    info = data["apiInfo"]
    assert info["workspace"] == {"id": workspace.id, "name": "Test workspace"}
    assert info["key"]["keyPrefix"] == workspace.key[:12]
    assert info["key"]["scopes"] == sorted(info["key"]["scopes"])
    assert "api_keys:manage" in info["key"]["scopes"]
    assert info["key"]["expiresAt"] is None
    assert info["machineUser"]["name"] == "Workspace API"
    assert set(info) == {"apiVersion", "workspace", "key", "machineUser"}


def test_api_info_needs_no_scope(workspace: WorkspaceFixture) -> None:
    key = workspace.create_key(["articles:read"])

    data = workspace.client(key).ok("{ apiInfo }")

    assert data["apiInfo"]["key"]["scopes"] == ["articles:read"]
