package dev.skail.web;

import java.time.Duration;
import java.util.List;

import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What the browser tests read and do on the Monitor. The page refreshes what it shows: each read waits for what it
 * looks for and retries an element that was just replaced.
 */
final class MonitorPage {

    private final WebDriver browser;

    MonitorPage(WebDriver browser) {
        this.browser = browser;
    }

    WebDriverWait waiting() {
        WebDriverWait wait = new WebDriverWait(this.browser, Duration.ofSeconds(15));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    String textOf(By locator) {
        return waiting().until((driver) -> {
            List<WebElement> found = driver.findElements(locator);
            return found.isEmpty() ? null : found.get(0).getText();
        });
    }

    String attributeOf(By locator, String attribute) {
        return waiting().until((driver) -> {
            List<WebElement> found = driver.findElements(locator);
            return found.isEmpty() ? null : found.get(0).getAttribute(attribute);
        });
    }

    /** Clicks the first element found once it is displayed. */
    void click(By locator) {
        waiting().until((driver) -> {
            List<WebElement> found = driver.findElements(locator);
            if (found.isEmpty() || !found.get(0).isDisplayed()) {
                return false;
            }
            found.get(0).click();
            return true;
        });
    }

    void waitForText(By locator, String text) {
        waiting().until((driver) -> driver.findElements(locator).stream().anyMatch((e) -> e.getText().equals(text)));
    }

    /** Whether an element is there and shown, without waiting for it. */
    boolean shown(By locator) {
        for (int i = 0; i < 3; i++) {
            try {
                List<WebElement> found = this.browser.findElements(locator);
                return !found.isEmpty() && found.get(0).isDisplayed();
            }
            catch (StaleElementReferenceException ex) {
                // replaced by a refresh: look again
            }
        }
        return false;
    }

    void waitUntilShown(By locator) {
        waiting().until((driver) -> shown(locator));
    }

    void waitUntilHidden(By locator) {
        waiting().until((driver) -> !shown(locator));
    }

    /** The headers of the first table found, as the operator reads them. */
    List<String> headers(By table) {
        return waiting().until((driver) -> {
            List<WebElement> found = driver.findElements(table);
            if (found.isEmpty()) {
                return null;
            }
            List<String> headers = found.get(0).findElements(By.cssSelector("thead th")).stream()
                .map((th) -> th.getAttribute("textContent").trim())
                .toList();
            return headers.isEmpty() ? null : headers;
        });
    }

    /**
     * Loads the page afresh: going from {@code /skail#a} to {@code /skail#b} would only change the fragment and keep
     * what the page holds (filters, switches).
     */
    void open(String url) {
        this.browser.get("about:blank");
        this.browser.get(url);
    }

    /** Shows the list of the executions whose id contains this text. */
    void listExecutionsLike(String baseUrl, String id) {
        open(baseUrl + "/skail");
        this.browser.findElement(By.id("filter-id")).sendKeys(id);
        this.browser.findElement(By.id("apply-filters")).click();
    }

    static By row(String taskId) {
        return By.cssSelector("#executions tbody tr[data-task-id='" + taskId + "']");
    }
}
