"""DescribeLimits and DescribeEndpoints: account-level answers SDKs and tools ask for."""

from conftest import make_client


def test_describe_limits(ddb):
    r = ddb.describe_limits()
    assert r["AccountMaxReadCapacityUnits"] == 80000
    assert r["AccountMaxWriteCapacityUnits"] == 80000
    assert r["TableMaxReadCapacityUnits"] == 40000
    assert r["TableMaxWriteCapacityUnits"] == 40000


def test_describe_endpoints_names_the_address_called(ddb, server):
    # The service answers its own host name, the one the client called; so does ddb, and the
    # address serves requests (SDKs with endpoint discovery send their next ones there).
    endpoints = ddb.describe_endpoints()["Endpoints"]
    assert endpoints == [{"Address": f"{server.host}:{server.port}", "CachePeriodInMinutes": 1440}]
    again = make_client("http://" + endpoints[0]["Address"]).describe_endpoints()
    assert again["Endpoints"] == endpoints
