"""DescribeLimits and DescribeEndpoints: account-level answers SDKs and tools ask for."""


def test_describe_limits(ddb):
    r = ddb.describe_limits()
    assert r["AccountMaxReadCapacityUnits"] == 80000
    assert r["AccountMaxWriteCapacityUnits"] == 80000
    assert r["TableMaxReadCapacityUnits"] == 40000
    assert r["TableMaxWriteCapacityUnits"] == 40000


def test_describe_endpoints_names_the_request_region(ddb):
    endpoints = ddb.describe_endpoints()["Endpoints"]
    assert endpoints == [{"Address": "dynamodb.us-east-1.amazonaws.com",
                          "CachePeriodInMinutes": 1440}]
